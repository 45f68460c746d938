/** Where an upstream call goes and what it sends (parsed and built once per upstream URL), and raw header lists: shared by the Node server and the Node upstream clients, none of which this loads. */

/** The media types of streamed answers: SSE, AWS event stream (Bedrock), NDJSON (Ollama). */
export const STREAMED = /text\/event-stream|application\/vnd\.amazon\.eventstream|application\/x-ndjson/i;

/**
 * The first value of header `name` (lower case) in a raw header list, as
 * `headers[name]` gives a header Node keeps once (content-type,
 * content-length), without building the `headers` object (Node builds it
 * from the raw list, header by header, on first access).
 */
export function firstRawHeader(raw: readonly string[], name: string): string | undefined {
  for (let index = 0; index < raw.length; index += 2) {
    const key = raw[index]!;
    if (key.length === name.length && key.toLowerCase() === name) return raw[index + 1];
  }
  return undefined;
}

/** Where a request goes, parsed once per URL (the proxy calls a handful of upstream URLs over and over). */
export interface Target {
  secure: boolean;
  hostname: string;
  port: string;
  path: string;
  /** The Host header, as Node would write it (brackets around IPv6, no default port). */
  host: string;
  /** Header lists already built for this target, by the proxy's (fixed) header object. */
  lists: WeakMap<Record<string, string>, string[]>;
}

export function targetCache(): (url: string) => Target {
  const cache = new Map<string, Target>();
  return (text) => {
    let target = cache.get(text);
    if (target === undefined) {
      const url = new URL(text);
      target = {
        secure: url.protocol === 'https:',
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        host: url.host,
        lists: new WeakMap(),
      };
      // Gemini URLs carry the model: keep the cache bounded whatever callers send.
      if (cache.size >= 256) cache.clear();
      cache.set(text, target);
    }
    return target;
  };
}

/**
 * The request's headers as the raw list `http.request` takes (name, value,
 * name, value…), Host first. Node writes a list as it is, where an object
 * costs a validated `setHeader` per name; the values were sanitised when the
 * proxy was made, and Node still refuses a value with a control character.
 * The list for the proxy's fixed header object is built once per target.
 */
export function headerList(target: Target, headers: Record<string, string>): string[] {
  let list = target.lists.get(headers);
  if (list === undefined) {
    list = [];
    let host = false;
    for (const name in headers) {
      const lower = name.toLowerCase();
      if (lower === 'content-length') continue;
      if (lower === 'host') host = true;
      list.push(name, headers[name] as string);
    }
    if (!host) list.unshift('host', target.host);
    target.lists.set(headers, list);
  }
  return list;
}

