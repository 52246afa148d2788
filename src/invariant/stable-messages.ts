// Canonical messages the request path reuses from one request to the next
// (see reading/entry-memo.ts). They are frozen and never change, so what a reader
// computes from one of them (the implicit log's fingerprint) can be kept
// with it, in the message's slot.
// The slot is a non-enumerable property under a module-private symbol, set
// before the message is frozen: reading it is a property load, not a WeakMap
// lookup per message of every request, and no copy, comparison or
// serialisation of the message sees it.

import type { Message } from '../model/messages';
import type { MessageSketch } from './sketch';

/** What readers keep with a reused message. */
export interface StableSlot {
  /** The implicit log's fingerprint of the message, once computed. */
  fingerprint?: number;
  /** The implicit log's content-free sketch of the message, once computed. */
  sketch?: MessageSketch;
  /** A tool result's copy named after its call (the name depends on the request), the last one made. */
  named?: Message;
}

const SLOT = Symbol('stable slot');

/** A slot only this module makes: a value found under `SLOT` is trusted only if it is one. */
class Slot implements StableSlot {
  fingerprint?: number;
  sketch?: MessageSketch;
  named?: Message;
  /** The message the slot was made for: a slot read through anything else (a proxy handing it out) proves nothing. */
  readonly #owner: object;

  constructor(owner: object) {
    this.#owner = owner;
  }

  static is(value: unknown): value is Slot {
    return typeof value === 'object' && value !== null && #owner in value;
  }

  static owns(slot: Slot, message: object): boolean {
    return slot.#owner === message;
  }
}

/**
 * Marks a canonical message, not yet frozen, as reused between requests;
 * returns it. A value that cannot take a slot (a primitive, a shared frozen
 * marker) is returned as it is and simply gets none.
 */
export function markStable<T>(message: T): T {
  if (typeof message === 'object' && message !== null && Object.isExtensible(message)) {
    Object.defineProperty(message, SLOT, { value: new Slot(message) });
  }
  return message;
}

/** The slot of a reused canonical message (which never changes), or undefined for any other value. */
export function stableSlot(message: unknown): StableSlot | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const slot = (message as { [SLOT]?: unknown })[SLOT];
  return slot !== undefined && Slot.is(slot) ? slot : undefined;
}

/**
 * Whether `value` is a canonical message the package made and marked (and
 * froze): such a message never changes, so the same object read twice reads
 * the same. The bound check skips what it already compared on that ground.
 */
export function isStableMessage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const slot = (value as { [SLOT]?: unknown })[SLOT];
  return slot !== undefined && Slot.is(slot) && Slot.owns(slot, value);
}
