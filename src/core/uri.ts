/**
 * URIs for targets whose spec says `format: uri` (OpenAI's `url_citation.url`,
 * image and file URLs): a URI a source took with characters RFC 3986 does
 * not allow (Gemini grounding and citation URIs with spaces, quotes or
 * non-ASCII letters) is percent-encoded, character by character, leaving
 * what is already valid (escapes included) as it is.
 */

/** The characters RFC 3986 does not allow anywhere in a URI (§2: unreserved, reserved and `%` are). */
const INVALID = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+/gu;
const HAS_INVALID = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/u;

/** `uri` itself when it is a data URL or every character is one a URI may hold (the common case: one regular-expression test), else with the others percent-encoded as UTF-8. */
export function validUri(uri: string): string {
  // A data URL is left alone: its payload (base64, megabytes of it) is never scanned.
  if (uri.startsWith('data:') || !HAS_INVALID.test(uri)) return uri;
  // `encodeURI` escapes every character of a run of invalid ones (none of them is `%`, so no escape is doubled).
  return uri.replace(INVALID, escapeRun);
}

/** Lone surrogates, which `encodeURI` throws on. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeRun(run: string): string {
  try {
    return encodeURI(run);
  } catch {
    return encodeURI(run.replace(LONE_SURROGATE, '\ufffd'));
  }
}
