/**
 * AWS Signature Version 4 for a Bedrock upstream, with `@smithy/signature-v4`
 * (the AWS SDK's own signer) and SHA-256 from Web Crypto (`web-sha256.ts`), so it
 * runs on Web APIs alone (Node, Bun, Deno, Workers).
 *
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-signing-elements.html
 */
import type { SignatureV4 } from '@smithy/signature-v4';
import { WebSha256 } from './web-sha256.ts';

/** AWS credentials: from configuration or `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Signs one upstream request: the headers to send, signature included. */
export type RequestSigner = (url: string, headers: Record<string, string>, body: string) => Promise<Record<string, string>>;

/** The request as SigV4 sees it; `host` is signed but left to the HTTP client to send. */
export function signableRequest(url: URL, method: string, headers: Record<string, string>, body: string) {
  const query: Record<string, string> = {};
  url.searchParams.forEach((value, key) => (query[key] = value));
  return {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: url.pathname,
    query,
    headers: { ...headers, host: url.host },
    body,
  };
}

/**
 * A SigV4 signer for `service` in `region`. The signer's module is loaded
 * when a signer is made (a Bedrock upstream), not with the proxy: it and
 * the `@smithy` modules it brings take about 45 ms to load on Node, which
 * every other proxy would pay at start-up.
 */
export function createSigV4Signer(credentials: AwsCredentials, region: string, service = 'bedrock'): RequestSigner {
  const signer: Promise<SignatureV4> = import('@smithy/signature-v4').then(({ SignatureV4 }) => new SignatureV4({ credentials, region, service, sha256: WebSha256 }));
  // A load that fails is the first signed request's error, not an unhandled rejection before it.
  signer.catch(() => {});
  return async (url, headers, body) => {
    const signed = await (await signer).sign(signableRequest(new URL(url), 'POST', headers, body));
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) if (name.toLowerCase() !== 'host') out[name] = value;
    return out;
  };
}
