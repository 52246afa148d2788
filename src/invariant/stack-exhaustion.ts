// The one failure of the check that is the package's own and not the
// request's: the call stack running out. Deep values are walked without
// recursion, so it only happens when the caller's stack was nearly full;
// it says nothing about the request and must never be reported as a
// violation of it.

/** Whether `error` is V8's stack overflow (`RangeError: Maximum call stack size exceeded`). */
export function isStackExhaustion(error: unknown): boolean {
  try {
    return error instanceof RangeError && error.message === 'Maximum call stack size exceeded';
  } catch {
    return false;
  }
}
