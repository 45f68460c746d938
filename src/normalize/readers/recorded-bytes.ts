/**
 * Bodies that a recorder kept as bytes: text, base64 text, Python bytes
 * (`!!binary` in a YAML cassette), hex chunks (nock), and any of these
 * gzip- or deflate-compressed as the server sent them. Decompressed here
 * (by the `Content-Encoding` header or by gzip's magic bytes), then read as
 * UTF-8, except a Bedrock binary event stream, which stays bytes.
 */
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { isBinaryEventStream } from '../body.ts';
import { NormalizeFailure } from '../failure.ts';
import type { RecordedBody } from '../types.ts';

function decompress(bytes: Uint8Array, encoding: string | undefined, side: string): Uint8Array {
  const coding = encoding?.toLowerCase().trim();
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  try {
    if (gzip || coding === 'gzip' || coding === 'x-gzip') return gzip ? gunzipSync(bytes) : bytes;
    if (coding === 'deflate') return inflateSync(bytes);
    if (coding === 'br') return brotliDecompressSync(bytes);
  } catch (error) {
    throw new NormalizeFailure('unreadable_body', `the ${side} body says ${coding ?? 'gzip'} but does not decompress (${(error as Error).message})`);
  }
  return bytes;
}

/** A recorded body from its bytes, decompressed, as text (or bytes for a Bedrock event stream). */
export function bodyFromBytes(bytes: Uint8Array, contentType: string | undefined, contentEncoding: string | undefined, side: string): RecordedBody | undefined {
  const plain = decompress(bytes, contentEncoding, side);
  if (plain.length === 0) return undefined;
  if (contentType !== undefined && isBinaryEventStream(contentType)) return { value: new Uint8Array(plain), contentType };
  const value = Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString('utf8');
  return contentType === undefined ? { value } : { value, contentType };
}

/** A recorded body given as text: compressed text cannot survive as a string, so text is taken as it is. */
export function bodyFromText(text: string, contentType: string | undefined): RecordedBody | undefined {
  if (text === '') return undefined;
  return contentType === undefined ? { value: text } : { value: text, contentType };
}
