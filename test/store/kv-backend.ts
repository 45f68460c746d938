/**
 * What stands behind the KV binding in workerd: workerd's own KV client
 * turns `env.KV.get/put/delete` into HTTP requests to this service (as it
 * does to Cloudflare's KV in production). It keeps entries in memory and
 * refuses what Workers KV refuses, with KV's messages: an `expiration_ttl`
 * under 60 seconds, a key over 512 bytes, a value over 25 MiB, metadata
 * over 1024 bytes. Entries expire at their TTL.
 *
 * @see https://developers.cloudflare.com/kv/platform/limits/
 */
interface Entry {
  value: string;
  metadata: string | null;
  expires: number;
}

const entries = new Map<string, Entry>();
const encoder = new TextEncoder();

function refuse(status: number, message: string): Response {
  return new Response(JSON.stringify({ success: false, errors: [{ code: 10000 + status, message }] }), { status, statusText: message });
}

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    // Read the body before any refusal: workerd's KV client waits for its upload to be taken.
    const body = request.method === 'PUT' ? await request.text() : '';
    const key = decodeURIComponent(url.pathname.slice(1));
    const keyBytes = encoder.encode(key).length;
    if (keyBytes > 512) return refuse(414, `UTF-8 encoded length of ${keyBytes} exceeds key length limit of 512.`);
    switch (request.method) {
      case 'GET': {
        const entry = entries.get(key);
        if (entry === undefined || entry.expires <= Date.now()) return new Response(null, { status: 404 });
        return new Response(entry.value, { headers: entry.metadata === null ? {} : { 'CF-KV-Metadata': entry.metadata } });
      }
      case 'PUT': {
        const ttl = url.searchParams.get('expiration_ttl');
        if (ttl !== null && !(Number(ttl) >= 60)) return refuse(400, `Invalid expiration_ttl of ${ttl}. Expiration TTL must be at least 60.`);
        const value = body;
        const valueBytes = encoder.encode(value).length;
        if (valueBytes > 25 * 1024 * 1024) return refuse(413, `Value length of ${valueBytes} exceeds limit of 26214400.`);
        const metadata = request.headers.get('CF-KV-Metadata');
        if (metadata !== null && encoder.encode(metadata).length > 1024) return refuse(413, 'Metadata length exceeds limit of 1024.');
        entries.set(key, { value, metadata, expires: ttl === null ? Number.POSITIVE_INFINITY : Date.now() + Number(ttl) * 1000 });
        return new Response(null);
      }
      case 'DELETE':
        entries.delete(key);
        return new Response(null);
      default:
        return refuse(405, `${request.method} is not a KV operation`);
    }
  },
};
