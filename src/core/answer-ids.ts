/**
 * Ids and times of answers that interlingua makes up, where the target
 * format requires them and the source had none (an Ollama answer has no id;
 * Gemini's has no creation time). Clients dedupe, cache and chain by these
 * ids, so by default each answer gets a fresh one in the target's own shape
 * (`msg_…`, `chatcmpl-…`, `resp_…`) from `crypto.getRandomValues`, and the
 * time is the clock's. A caller that wants reproducible output (goldens,
 * snapshot tests) passes {@link fixedAnswerIds}, or its own source.
 */

/** Where made-up ids and times come from. */
export interface AnswerIds {
  /** A fresh id that starts with `prefix` (`msg_`, `chatcmpl-`, `resp_`). */
  id(prefix: string): string;
  /** The time of the answer, in Unix seconds. */
  now(): number;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Fresh random ids (24 letters and digits after the prefix) and the clock. */
export const randomAnswerIds: AnswerIds = {
  id(prefix: string): string {
    const bytes = new Uint8Array(24);
    crypto.getRandomValues(bytes);
    let id = prefix;
    // 256 is 4 × 62 + 8: the first eight letters are a little likelier, which an id does not mind.
    for (const byte of bytes) id += ALPHABET[byte % 62];
    return id;
  },
  now: () => Math.floor(Date.now() / 1000),
};

/** The same id for every answer (`<prefix>interlingua`) and time 0: reproducible output. */
export const fixedAnswerIds: AnswerIds = {
  id: (prefix: string) => `${prefix}interlingua`,
  now: () => 0,
};
