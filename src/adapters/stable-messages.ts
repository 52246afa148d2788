// Canonical messages the request path reuses from one request to the next
// (see entry-memo.ts). They are frozen and never change, so what a reader
// computes from one of them (the implicit log's fingerprint) can be kept
// with it, in the message's slot.

/** What readers keep with a reused message. */
export interface StableSlot {
  /** The implicit log's fingerprint of the message, once computed. */
  fingerprint?: number;
}

const slots = new WeakMap<object, StableSlot>();

/** Marks a frozen canonical message as reused between requests; returns it. */
export function markStable<T extends object>(message: T): T {
  slots.set(message, {});
  return message;
}

/** The slot of a reused canonical message (which never changes), or undefined for any other value. */
export function stableSlot(message: unknown): StableSlot | undefined {
  return typeof message === 'object' && message !== null ? slots.get(message) : undefined;
}
