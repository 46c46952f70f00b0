// Text as people are shown it: the characters a terminal acts on or that reorder text, found, escaped or
// refused (services/validation.ts refuses them in names; the CLI escapes what was stored before).

/**
 * What a terminal acts on or what reorders text, in a value that is shown to people: the C0 controls
 * (NUL, TAB, CR, LF, ESC, ...), DEL and the C1 controls (CSI U+009B, ...), the bidirectional controls
 * (marks U+200E, U+200F, U+061C; embeddings and overrides U+202A–U+202E; isolates U+2066–U+2069), and
 * the line and paragraph separators U+2028, U+2029. A name or URI carrying one could retitle the
 * operator's terminal, erase a line and print a forged one, or display reversed ("gpj.exe").
 */
const UNSAFE_RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
export const UNSAFE = new RegExp(`[${UNSAFE_RANGES}]`, 'u');
const UNSAFE_ALL = new RegExp(`[${UNSAFE_RANGES}]`, 'gu');

export const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** How many characters of a value people are shown; longer ones end in an ellipsis. */
export const MAX_SHOWN = 200;

/**
 * A value as a terminal may show it: each control or text-direction character written out visibly
 * (`\x1b`, `\u202e`), and cut to `max` characters with an ellipsis. For data stored before the rule
 * above, and for anything quoted back in a message.
 */
export function printable(value: string, max = MAX_SHOWN): string {
  let shown = value;
  if (value.length > max) {
    let cut = max - 1;
    // Never half a surrogate pair.
    if (/[\ud800-\udbff]/.test(value.charAt(cut - 1))) cut -= 1;
    shown = `${value.slice(0, cut)}…`;
  }
  return shown.replace(UNSAFE_ALL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** JSON.stringify leaves these raw (it escapes only C0 controls): DEL, C1 controls, bidi controls, U+2028/9. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * JSON text that is safe on a terminal: JSON.stringify's, with those characters written as \uXXXX escapes.
 * The same JSON value (they can only occur inside strings), so a parser reads back exactly what was stored.
 */
export const jsonText = (value: unknown): string =>
  JSON.stringify(value).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A value quoted in a message: printable, in double quotes. */
export const quoted = (value: unknown): string => `"${printable(String(value))}"`;
