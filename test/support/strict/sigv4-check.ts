/**
 * Bedrock's check of a request's SigV4 signature: recompute it from the
 * request as received, with the same signer the proxy uses, and compare.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html
 */
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { WebSha256 } from '../../../src/proxy/web-sha256.ts';
import { signableRequest, type AwsCredentials } from '../../../src/proxy/sigv4.ts';

/** True when the signature of `request` (with body `body`) is the one `credentials` give for `region`. */
export async function verifySigV4(request: IncomingMessage, body: string, credentials: AwsCredentials, region: string): Promise<boolean> {
  const authorization = request.headers['authorization'];
  const date = request.headers['x-amz-date'];
  if (typeof authorization !== 'string' || typeof date !== 'string') return false;
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const host = headers['host'] ?? '';
  delete headers['host'];
  const url = new URL(`http://${host}${request.url ?? ''}`);
  const signer = new SignatureV4({ credentials, region, service: 'bedrock', sha256: WebSha256 });
  const iso = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`;
  const expected = await signer.sign(signableRequest(url, request.method ?? 'POST', headers, body), { signingDate: new Date(iso) });
  return expected.headers['authorization'] === authorization;
}
