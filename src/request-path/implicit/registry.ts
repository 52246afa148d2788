// The process's implicit log, made on first use with the instrumentation's
// settings (defaults in docs/behaviour.md §8.6), or none when it is
// switched off. The shared store's modules (and the Redis client) load only
// when a shared store is configured.

import { lazyPart } from '../../lazy-part';
import type { InvariantInstruments } from '../../telemetry/instruments';
import { currentHost, implicitLogFromEnv, type ImplicitLogOptions } from '../host';
import { ImplicitLogs } from './implicit-logs';
import type { SharedLogs } from './shared-logs';
import { storeChoice, type StoreChoice } from './store-config';

/** What the request path asks of the implicit log, kept in this process's memory or in a shared store. */
export type ImplicitLog = Pick<ImplicitLogs, 'check' | 'continueHeld' | 'size'> & Partial<Pick<ImplicitLogs, 'checkBytes'>>;

/**
 * Conversations the implicit log keeps at most, when
 * `implicit.maxConversations` is not a positive finite number
 * (docs/behaviour.md §8.6).
 */
export const DEFAULT_MAX_CONVERSATIONS = 1_000;
/**
 * 30 minutes: how long a conversation may go unused before the implicit log
 * drops it, when `implicit.idleTimeoutMs` is not a positive finite number
 * (docs/behaviour.md §8.6).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

/** The implicit log in use; with a shared store, how to close it and wait for its pending work (its modules stay unloaded otherwise). */
let shared:
  | {
      maxConversations: number;
      idleTimeoutMs: number;
      store: StoreIdentity;
      logs: ImplicitLog;
      close?: () => void;
      whenIdle?: () => Promise<void>;
    }
  | undefined;

/** A store's identity: the same URL (as written) or the same client object, under the same prefix. */
type StoreIdentity = readonly [target: unknown, prefix: string];

/** Whether the implicit log is on: the config's `enabled`, else the environment, else on. */
export function implicitLogEnabled(options: ImplicitLogOptions | undefined): boolean {
  return options?.enabled ?? implicitLogFromEnv();
}

/** The implicit log for these settings, or undefined when it is off. */
export function implicitLogs(options: ImplicitLogOptions | undefined): ImplicitLog | undefined {
  if (!implicitLogEnabled(options)) return undefined;
  const maxConversations = positive(options?.maxConversations) ?? DEFAULT_MAX_CONVERSATIONS;
  const idleTimeoutMs = positive(options?.idleTimeoutMs) ?? DEFAULT_IDLE_TIMEOUT_MS;
  const choice = storeOf(options);
  const store: StoreIdentity =
    choice.kind === 'memory'
      ? ['memory', '']
      : [choice.target.kind === 'url' ? choice.target.written : choice.target.client, choice.prefix];
  if (
    shared?.maxConversations !== maxConversations ||
    shared.idleTimeoutMs !== idleTimeoutMs ||
    shared.store[0] !== store[0] ||
    shared.store[1] !== store[1]
  ) {
    shared?.close?.();
    const instruments = (): InvariantInstruments => currentHost().instruments;
    const local = new ImplicitLogs({ maxConversations, idleTimeoutMs }, instruments);
    if (choice.kind === 'memory') shared = { maxConversations, idleTimeoutMs, store, logs: local };
    else {
      const logs = sharedLogs(local, choice, idleTimeoutMs, instruments);
      shared = { maxConversations, idleTimeoutMs, store, logs, close: () => logs.close(), whenIdle: () => logs.whenIdle() };
    }
  }
  return shared.logs;
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded only for a shared store */
const sharedStore = lazyPart('implicit/shared-store', () => ({
  ...(require('./shared-logs') as typeof import('./shared-logs')),
  ...(require('./redis-buckets') as typeof import('./redis-buckets')),
  ...(require('./redis-connection') as typeof import('./redis-connection')),
}));
/* eslint-enable @typescript-eslint/no-require-imports */

/** The implicit log kept in the shared store `choice` names, with `local` in front of it. */
function sharedLogs(
  local: ImplicitLogs,
  choice: Exclude<StoreChoice, { kind: 'memory' }>,
  idleTimeoutMs: number,
  instruments: () => InvariantInstruments,
): SharedLogs {
  const { SharedLogs, RedisBuckets, connectionFor } = sharedStore();
  return new SharedLogs(local, new RedisBuckets(connectionFor(choice.target), choice.prefix, idleTimeoutMs), idleTimeoutMs, instruments);
}

/**
 * Resolves once the shared store has reported every check and landed (or
 * given up) every write it owes: its work runs off the callers' paths, and
 * tests read its results only after it. At once with the store in memory.
 */
export function implicitStoreIdle(): Promise<void> {
  return shared?.whenIdle?.() ?? Promise.resolve();
}

/** The store for these options, resolved once per options object (the instrumentation's is one per enable() or setConfig()). */
const choices = new WeakMap<ImplicitLogOptions, StoreChoice>();
function storeOf(options: ImplicitLogOptions | undefined): StoreChoice {
  if (options === undefined) return storeChoice(undefined);
  let choice = choices.get(options);
  if (choice === undefined) choices.set(options, (choice = storeChoice(options)));
  return choice;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
