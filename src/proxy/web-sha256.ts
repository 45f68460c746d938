/**
 * SHA-256 and HMAC-SHA-256 over Web Crypto (`crypto.subtle`), in the shape
 * the SigV4 signer takes (`new Hash(secret?)`, `update`, `digest`). Web
 * Crypto is in Node, Bun, Deno and Workers alike, so signing needs neither
 * `node:crypto` nor a `Buffer` polyfill.
 */
/** What the signer hashes: text (UTF-8) or bytes. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const utf8 = new TextEncoder();

function bytesOf(data: SourceData): Uint8Array {
  if (typeof data === 'string') return utf8.encode(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/** A SHA-256 hash, or an HMAC-SHA-256 when made with a secret. */
export class WebSha256 {
  private chunks: Uint8Array[] = [];

  constructor(private readonly secret?: SourceData) {}

  update(data: SourceData): void {
    this.chunks.push(bytesOf(data).slice());
  }

  async digest(): Promise<Uint8Array> {
    const length = this.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    const data = new Uint8Array(length);
    let offset = 0;
    for (const chunk of this.chunks) {
      data.set(chunk, offset);
      offset += chunk.byteLength;
    }
    if (this.secret === undefined) return new Uint8Array(await crypto.subtle.digest('SHA-256', data));
    const key = await crypto.subtle.importKey('raw', bytesOf(this.secret).slice(), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
  }

  reset(): void {
    this.chunks = [];
  }
}
