// The one place that decides how a part of the package loaded on demand is
// found. Parts that only some processes use (an integration's code, the
// shared store) are required when first needed, not at start-up
// (docs/performance.md "Cold start"). A test runner that runs the sources
// through its own module loader cannot `require` them: it provides each part
// it loaded its way first, so that the process holds one copy of each.

const provided = new Map<string, unknown>();

/** Makes `exports` the part `name` (a test runner's own copy); before the part is first used. */
export function provideLazyPart(name: string, exports: unknown): void {
  provided.set(name, exports);
}

/** The part `name`: loaded by `load` (a `require` of it) at the first call, unless one was provided. */
export function lazyPart<T>(name: string, load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= (provided.get(name) as T | undefined) ?? load());
}
