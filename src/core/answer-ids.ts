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

/** The character codes of {@link ALPHABET}. */
const ALPHABET_CODES = Array.from(ALPHABET, (letter) => letter.charCodeAt(0));

/** Letters and digits of an id after its prefix. */
const ID_LENGTH = 24;

/**
 * Random bytes for 128 ids, drawn in one `crypto.getRandomValues` call when
 * the last batch is used up: a call and a fresh array per id cost several
 * times the rest of a small answer's encoding. Filled on first use, not
 * when the module loads (Workers refuse random values outside a request).
 */
const randomBytes = new Uint8Array(ID_LENGTH * 128);
let nextByte = randomBytes.length;

/** Fresh random ids (24 letters and digits after the prefix) and the clock. */
export const randomAnswerIds: AnswerIds = {
  id(prefix: string): string {
    if (nextByte === randomBytes.length) {
      crypto.getRandomValues(randomBytes);
      nextByte = 0;
    }
    const codes: number[] = new Array<number>(ID_LENGTH);
    // 256 is 4 × 62 + 8: the first eight letters are a little likelier, which an id does not mind.
    for (let index = 0; index < ID_LENGTH; index++) codes[index] = ALPHABET_CODES[randomBytes[nextByte + index]! % 62]!;
    nextByte += ID_LENGTH;
    return prefix + String.fromCharCode(...codes);
  },
  now: () => Math.floor(Date.now() / 1000),
};

/** The same id for every answer (`<prefix>interlingua`) and time 0: reproducible output. */
export const fixedAnswerIds: AnswerIds = {
  id: (prefix: string) => `${prefix}interlingua`,
  now: () => 0,
};
