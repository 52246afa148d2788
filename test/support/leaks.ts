// Everything a thrown error shows when an app or a test runner prints it: to
// look for prompt text that must not be there.

import { inspect } from 'node:util';

/** The error as `console.error`, `util.inspect`, `JSON.stringify` and `String` render it, plus its message, stack and cause. */
export function renderingsOf(error: unknown): string[] {
  const e = error as { message?: unknown; stack?: unknown; cause?: unknown };
  return [
    String(error),
    String(e.message),
    String(e.stack),
    inspect(error, { depth: Infinity, showHidden: true }),
    inspect(e.cause, { depth: Infinity, showHidden: true }),
    JSON.stringify(error) ?? '',
  ];
}
