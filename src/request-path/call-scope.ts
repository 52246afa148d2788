// Who already checked a request: the one place that decides it, for every
// seam and for every copy of the package loaded in the process. A request is
// checked and counted once (docs/behaviour.md §8.5), by the first seam that
// takes it:
// - a framework call (one AI SDK language-model call): whether a seam above
//   already checked it (the middleware claims the call), and whether a seam
//   below saw its HTTP request (then the framework's own event is not checked
//   again);
// - an SDK client's request (the client hook): the client hands fetch an
//   abort signal of its own per attempt, and the hook records it, so the fetch
//   seam leaves that request alone. Only a hooked client's attempts are
//   recorded: another copy of the same SDK (a bundle's, say), whose requests
//   carry the same headers, is checked at the fetch seam.
// Both are kept on globalThis under a `Symbol.for` key, so that every copy of
// the package (an app's and a dependency's nested one) reads the same: the
// copy whose client hook checked a request and the copy whose fetch seam sees
// it need not be the same one.

import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One framework call (an AI SDK language-model call) as the seams below it see
 * it, so that each request is checked and counted once (docs/behaviour.md
 * §8.5).
 */
export interface CallScope {
  /** Checked above (the AI SDK middleware, an SDK client hook): seams below leave it alone. */
  claimed: boolean;
  /** A seam below (the fetch seam) checked its HTTP request. */
  seenBelow: boolean;
}

/** What every copy of the package shares. Its shape is fixed for this key: change it only with a new key. */
interface Claims {
  /** The call scopes, per async context. */
  readonly scopes: AsyncLocalStorage<CallScope>;
  /** The abort signals SDK clients handed to fetch with the attempts their hook took. */
  readonly clientSignals: WeakSet<object>;
}

const KEY = Symbol.for('nous-session-invariant.claims.v1');
const holder = globalThis as { [KEY]?: Claims };
const claims: Claims = (holder[KEY] ??= { scopes: new AsyncLocalStorage<CallScope>(), clientSignals: new WeakSet<object>() });

/**
 * The current `CallScope`, per async context. The AI SDK telemetry channel
 * binds one to each language-model call; the middleware marks it, or opens one
 * (`runClaimed`).
 */
export const callScopeStorage = claims.scopes;

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

/**
 * Sends one attempt of a hooked SDK client (`send`: the client's own
 * `fetchWithTimeout`) as a request the client hook took: `signal`, the abort
 * signal the client hands fetch with it, is recorded, and the attempt runs as
 * a claimed call, so that a client given a fetch of its own that builds
 * another signal (a new `Request`) is still known.
 */
export function sendAsClientRequest<T>(signal: unknown, send: () => T): T {
  if (typeof signal === 'object' && signal !== null) claims.clientSignals.add(signal);
  return runClaimed(send);
}

/**
 * Whether `signal` (a fetch call's init's) is one a hooked SDK client handed
 * fetch with an attempt its hook took (`sendAsClientRequest`): for a client
 * whose own fetch left the claimed call (`currentCallScope`), which a seam
 * asks first.
 */
export function isClientAttempt(signal: unknown): boolean {
  return typeof signal === 'object' && signal !== null && claims.clientSignals.has(signal);
}
