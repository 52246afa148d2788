// The process's implicit log, made on first use with the instrumentation's
// settings (defaults in docs/behaviour.md §8.6), or none when it is
// switched off.

import { readEnvFlag } from '../../invariant/mode';
import { currentHost, type ImplicitLogOptions } from '../host';
import { ImplicitLogs } from './implicit-logs';

/** `NOUS_SESSION_INVARIANT_IMPLICIT=off` turns the implicit log off; bound sessions are still checked. */
export const IMPLICIT_ENV_VAR = 'NOUS_SESSION_INVARIANT_IMPLICIT';
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

let shared: { maxConversations: number; idleTimeoutMs: number; logs: ImplicitLogs } | undefined;

/** Whether the implicit log is on: the config's `enabled`, else the environment, else on. */
export function implicitLogEnabled(options: ImplicitLogOptions | undefined): boolean {
  return options?.enabled ?? readEnvFlag(IMPLICIT_ENV_VAR) ?? true;
}

/** The implicit log for these settings, or undefined when it is off. */
export function implicitLogs(options: ImplicitLogOptions | undefined): ImplicitLogs | undefined {
  if (!implicitLogEnabled(options)) return undefined;
  const maxConversations = positive(options?.maxConversations) ?? DEFAULT_MAX_CONVERSATIONS;
  const idleTimeoutMs = positive(options?.idleTimeoutMs) ?? DEFAULT_IDLE_TIMEOUT_MS;
  if (shared?.maxConversations !== maxConversations || shared.idleTimeoutMs !== idleTimeoutMs) {
    shared = {
      maxConversations,
      idleTimeoutMs,
      logs: new ImplicitLogs({ maxConversations, idleTimeoutMs }, () => currentHost().instruments),
    };
  }
  return shared.logs;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
