// A framework call (one AI SDK language-model call), as the seams below it
// see it: whether a seam above already checked it (the middleware claims the
// call), and whether a seam below saw its HTTP request (then the framework's
// own event is not checked again). Each request is counted once.

import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One framework call (an AI SDK language-model call) as the seams below it see
 * it, so that each request is checked and counted once (docs/behaviour.md
 * §8.5).
 */
export interface CallScope {
  /** Checked above (the AI SDK middleware): seams below leave it alone. */
  claimed: boolean;
  /** A seam below (the fetch seam) checked its HTTP request. */
  seenBelow: boolean;
}

/**
 * The current `CallScope`, per async context. The AI SDK telemetry channel
 * binds one to each language-model call; the middleware marks it, or opens one
 * (`runClaimed`).
 */
export const callScopeStorage = new AsyncLocalStorage<CallScope>();

/** The framework call the current async context is part of, if any. */
export function currentCallScope(): CallScope | undefined {
  return callScopeStorage.getStore();
}

/** Marks the enclosing call as checked here (before its check, which may throw). */
export function claimCall(): void {
  const scope = callScopeStorage.getStore();
  if (scope) scope.claimed = true;
}

/** Runs `fn` as a call checked here: marks the enclosing scope, or opens one. */
export function runClaimed<T>(fn: () => T): T {
  const scope = callScopeStorage.getStore();
  if (scope) {
    scope.claimed = true;
    return fn();
  }
  return callScopeStorage.run({ claimed: true, seenBelow: false }, fn);
}
