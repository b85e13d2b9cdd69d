// Text the stores can keep as sent. JSON strings are UTF-16 and may hold a lone surrogate
// (`"\ud800"` is valid JSON text, RFC 8259 §8.2); UTF-8 cannot encode one, so PostgreSQL
// refuses it and Node's encoder would silently turn it into U+FFFD. Both JSON bodies on the
// event loop (api/json-body.ts) and the data point scanner here use this one test.

/**
 * Whether `text` holds a UTF-16 code unit that is half of a pair without its other half
 * (String.prototype.isWellFormed, ES2024: native, where a regular expression walks the text).
 */
export function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

/** Whether `text` can be stored as PostgreSQL text: no U+0000 and no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** Characters as SPEC counts a value's length: Unicode code points (a surrogate pair is one). */
export function codePointCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
