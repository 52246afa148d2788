// The one place that decides how a value the caller controls (an agent name, a
// conversation id, a model name, a tool call id) becomes text the package
// writes: read once without letting the value throw, and cut to a bound, so a
// hostile or accidental megabyte never reaches a span, a log record, a metric
// or a console line whole (docs/behaviour.md §6.6).

/** Characters kept of any caller-supplied value the package writes. */
export const MAX_WRITTEN_LENGTH = 256;

/** What a value that cannot be read as text is written as. */
export const UNREADABLE_VALUE = '[unreadable value]';

/**
 * `value` as text of at most `MAX_WRITTEN_LENGTH` characters plus a cut
 * marker, or `undefined` for no value (`undefined`, `null`, `''`). A string
 * within the bound is returned as it is (the common case costs one length
 * check). Anything else is converted once with `String`; a Symbol is
 * described, and a value whose conversion throws or does not give a string
 * is written as `[unreadable value]`. Never throws.
 */
export function writtenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : bounded(value);
  if (value === undefined || value === null) return undefined;
  let text: unknown;
  try {
    text = typeof value === 'symbol' ? value.toString() : String(value);
  } catch {
    return UNREADABLE_VALUE;
  }
  return typeof text === 'string' && text !== '' ? bounded(text) : UNREADABLE_VALUE;
}

/** `text` cut to the bound (never inside a surrogate pair), with a marker saying how long it was. */
export function bounded(text: string): string {
  if (text.length <= MAX_WRITTEN_LENGTH) return text;
  let end = MAX_WRITTEN_LENGTH;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  // A slice would keep the whole original alive for as long as the exported copy lives; the JSON round trip copies.
  const head = JSON.parse(JSON.stringify(text.slice(0, end))) as string;
  return `${head}…[cut, ${text.length} characters]`;
}
