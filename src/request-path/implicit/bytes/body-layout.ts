// Where a request's conversation lies in its serialised body: the array of
// messages (Chat Completions, Anthropic Messages) or input items
// (Responses), and its first non-system element, whose bytes are the key a
// conversation is found by. Found by the structural scan, without parsing.

import { arrayElements, skipSpace, skipValue, topLevelValue } from './json-scan';

/** The top-level key of the conversation's array, by wire format. */
export type ConversationArrayKey = 'messages' | 'input';

/** Where the conversation lies in a body. */
export interface BodyLayout {
  /** The index of the array's `[`. */
  readonly open: number;
  /** How many leading system (or developer) elements it has: left out of the bytes. */
  readonly systemCount: number;
  /** p0: the start of the first non-system element. */
  readonly p0: number;
  /** The end of the first non-system element. */
  readonly firstEnd: number;
  /** The end of the last leading system element (`open + 1` when there is none). */
  readonly systemEnd: number;
}

/** Whether the element at `start` is an object whose `role` is `system` or `developer`. */
function isSystemElement(s: string, start: number): boolean {
  if (s.charCodeAt(start) !== 0x7b) return false;
  const role = topLevelValue(s, 'role', start);
  return role >= 0 && (s.startsWith('"system"', role) || s.startsWith('"developer"', role));
}

/**
 * The layout of `body` (a JSON object), or undefined when its array is
 * missing, malformed, or holds only system elements (such a request is not
 * followed). Leading system elements are skipped one by one, so only they
 * and the first other element are scanned.
 */
export function bodyLayout(body: string, arrayKey: ConversationArrayKey): BodyLayout | undefined {
  const open = topLevelValue(body, arrayKey);
  if (open < 0 || body.charCodeAt(open) !== 0x5b) return undefined;
  // Scan element by element until the first non-system one (a request rarely has more than one or two system elements).
  let from: number | undefined;
  let systemCount = 0;
  for (;;) {
    const next = nextElement(body, open, from);
    if (next === undefined) return undefined;
    if (!isSystemElement(body, next.start)) return { open, systemCount, p0: next.start, firstEnd: next.end, systemEnd: from ?? open + 1 };
    systemCount++;
    from = next.end;
  }
}

/** The element after the one ending at `from` (or the first), without scanning the rest of the array. */
function nextElement(body: string, open: number, from: number | undefined): { start: number; end: number } | undefined {
  let at = skipSpace(body, from === undefined ? open + 1 : from);
  if (from !== undefined) {
    if (body.charCodeAt(at) !== 0x2c) return undefined; // `]`: no non-system element
    at = skipSpace(body, at + 1);
  } else if (body.charCodeAt(at) === 0x5d) return undefined;
  const end = skipValue(body, at);
  return end < 0 ? undefined : { start: at, end };
}

/** The elements from p0 to the array's end (whole-array scan: the slow path and tests). */
export function elementsFrom(body: string, layout: BodyLayout): Array<{ start: number; end: number }> | undefined {
  const all = arrayElements(body, layout.open);
  return all?.slice(layout.systemCount);
}
