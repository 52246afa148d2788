// The app's fetch arguments, each member the seam needs read exactly once,
// and the init to pass on so that fetch sends what the seam checked. A
// member defined by a getter (or an init that is a Proxy) may give another
// value on its next read: reading `init.body` to check it, then letting
// fetch read it again, could check one body and send another.
//
// The choice: an init whose members the seam read as plain values goes on
// unchanged (the same object: reading it again gives the same values). One
// with a member read through a getter or a Proxy goes on as a copy: the same
// prototype and own properties (other getters kept as getters, not called),
// with each member the seam read set to the value it read. Fetch then reads
// every member once, as without the package, and the request sent is the
// request checked; the app's own init is never modified.

import { types } from 'node:util';

export class InitReader {
  readonly #init: object | undefined;
  readonly #read = new Map<string, { value: unknown; pinned: boolean }>();

  /** `init`: fetch's second argument, anything (not an object: no member is read). */
  constructor(init: unknown) {
    this.#init = typeof init === 'object' && init !== null ? init : undefined;
  }

  /** `init[name]`, read from the app's init at most once. */
  get(name: string): unknown {
    const known = this.#read.get(name);
    if (known) return known.value;
    const read = this.#init === undefined ? { value: undefined, pinned: false } : readMember(this.#init, name);
    this.#read.set(name, read);
    return read.value;
  }

  /** The init fetch gets: the app's own, or a copy with the values read through getters in place (see above). */
  passOn(original: unknown): unknown {
    const init = this.#init;
    const pinned = [...this.#read].filter(([, read]) => read.pinned);
    if (init === undefined || pinned.length === 0) return original;
    try {
      const copy = Object.create(Object.getPrototypeOf(init) as object | null, Object.getOwnPropertyDescriptors(init)) as object;
      for (const [name, { value }] of pinned) {
        Object.defineProperty(copy, name, { value, writable: true, enumerable: true, configurable: true });
      }
      return copy;
    } catch {
      return original; // an init that cannot be copied: fetch reads it again, as it would without the package
    }
  }
}

/** One read of `target[name]`, and whether it must be pinned (a getter ran, or `target` is a Proxy). */
function readMember(target: object, name: string): { value: unknown; pinned: boolean } {
  if (types.isProxy(target)) return { value: (target as Record<string, unknown>)[name], pinned: true };
  for (let at: object | null = target; at; at = Object.getPrototypeOf(at) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(at, name);
    if (descriptor === undefined) continue;
    if (!descriptor.get && !descriptor.set) return { value: descriptor.value as unknown, pinned: false };
    return { value: descriptor.get?.call(target) as unknown, pinned: true };
  }
  return { value: undefined, pinned: false };
}

/** `input.url` read once, for a Request or an object standing for one (a string or a URL has none). */
export function urlMember(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || input instanceof URL) return undefined;
  return (input as { url?: unknown }).url;
}
