// One wrap of `globalThis.fetch` per process, however many instrumentations
// are enabled and however many copies of the package are loaded (the app's
// own setup and `register`, or a dependency with a nested copy). Each used
// to wrap fetch again, so a request passed through one seam per instance and
// a violation was counted once per seam. The registry lives on globalThis
// under a `Symbol.for` key, so every copy finds the same one; the wrapper
// hands each call to the observer enabled last (as the last instrumentation
// enabled is the one in force) and passes it through when none is.

type Fetch = typeof globalThis.fetch;

/**
 * What an enabled seam does with one call: it makes the call itself, with
 * `fetch` (the fetch that was there before the wrap) and the caller's `this`
 * and arguments, and returns its result. The shape every copy of the
 * package agrees on; change it only with a new key.
 */
export type FetchObserver = (fetch: Fetch, thisArg: unknown, args: unknown[]) => unknown;

interface FetchRegistry {
  /** The fetch wrapped. */
  readonly original: Fetch;
  /** The wrap installed as `globalThis.fetch`. */
  readonly wrapper: Fetch;
  /** The observers registered and not yet stopped, oldest first; the last one sees the calls. */
  readonly observers: Array<{ observe: FetchObserver }>;
}

const KEY = Symbol.for('nous-session-invariant.fetch-seam.v1');
const holder = globalThis as { [KEY]?: FetchRegistry };

/**
 * Registers `observe` for every call of `globalThis.fetch`, wrapping it if no
 * wrap of this registry is in place; returns what unregisters it. The last
 * one out restores the fetch that was wrapped, unless another tool wrapped it
 * since: then the wrap stays in that tool's chain as a pass-through.
 */
export function registerFetchObserver(observe: FetchObserver): () => void {
  const registry = currentRegistry();
  if (registry === undefined) return () => {};
  const token = { observe };
  registry.observers.push(token);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    const at = registry.observers.indexOf(token);
    if (at >= 0) registry.observers.splice(at, 1);
    if (registry.observers.length > 0 || holder[KEY] !== registry) return;
    if (globalThis.fetch === registry.wrapper) {
      globalThis.fetch = registry.original;
      delete holder[KEY];
    }
  };
}

/**
 * The registry in force, made (and fetch wrapped) if there is none. One with
 * no observers whose wrap is no longer `globalThis.fetch` (fetch replaced
 * since) is left to pass through wherever it still is, and a new one wraps
 * the fetch there is now.
 */
function currentRegistry(): FetchRegistry | undefined {
  const existing = holder[KEY];
  if (existing && (existing.observers.length > 0 || globalThis.fetch === existing.wrapper)) return existing;
  const original = globalThis.fetch;
  if (typeof original !== 'function') return undefined;
  const observers: FetchRegistry['observers'] = [];
  // The caller's arguments as they came (their number too), and its result as it is.
  const wrapper = function fetch(this: unknown, ...args: unknown[]): unknown {
    const observer = observers[observers.length - 1];
    if (observer === undefined) return Reflect.apply(original, this, args);
    return observer.observe(original, this, args);
  } as Fetch;
  const registry: FetchRegistry = { original, wrapper, observers };
  holder[KEY] = registry;
  globalThis.fetch = wrapper;
  return registry;
}
