// Text the stores can keep as sent. JSON strings are UTF-16 and may hold a lone surrogate
// (`"\ud800"` is valid JSON text, RFC 8259 §8.2); UTF-8 cannot encode one, so PostgreSQL
// refuses it and Node's encoder would silently turn it into U+FFFD. Both JSON bodies on the
// event loop (api/json-body.ts) and the data point scanner here use this one test.

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` holds a UTF-16 code unit that is half of a pair without its other half. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Whether `text` can be stored as PostgreSQL text: no U+0000 and no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
