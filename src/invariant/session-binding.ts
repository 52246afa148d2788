// Binding a session log to the code that makes model calls. The binding has
// its own AsyncLocalStorage rather than the OpenTelemetry context: that one
// carries nothing without a registered context manager (OTEL_SDK_DISABLED, no
// SDK, a set-up with providers only), and a bound session would be silently
// unchecked.

import { AsyncLocalStorage } from 'node:async_hooks';
import { SessionLog } from '../log/session-log';
import type { Mode } from './mode';

/** The log bound to the current context, with the settings bound along with it. */
export interface SessionBinding {
  readonly log: SessionLog;
  /** Recorded as `gen_ai.agent.name` on violations. */
  readonly agentName?: string | undefined;
  /** Overrides the instrumentation's mode for requests made in this scope. */
  readonly mode?: Mode | undefined;
  /** Recorded as `gen_ai.conversation.id` on violations; absent: the log's own random id. */
  readonly conversationId?: string | undefined;
}

/**
 * Settings bound along with the log by `withSession`. They win over the
 * instrumentation config and the environment and lose to a call's own option
 * (docs/behaviour.md §5.5). Content capture is not among them: it follows the
 * call, the config and the environment.
 */
export interface WithSessionOptions {
  /** Recorded as `gen_ai.agent.name` for requests made in this scope. */
  agentName?: string;
  /** The mode for requests made in this scope. */
  mode?: Mode;
  /** The app's own id of this conversation, recorded as `gen_ai.conversation.id` (default: a random id per log). */
  conversationId?: string;
}

// Kept on globalThis under Symbol.for, so every copy of this package in a
// process (the CommonJS and ES module builds, two installs) shares one binding.
const STORAGE = Symbol.for('nous-session-invariant.session-storage');
const holder = globalThis as { [STORAGE]?: AsyncLocalStorage<SessionBinding> };
const storage = (holder[STORAGE] ??= new AsyncLocalStorage<SessionBinding>());

/**
 * Runs `fn` with `log` bound as the active session: every model request made
 * inside it (and in async work it starts) is checked against `log`. A bound
 * log always wins over the implicit conversation the package would otherwise
 * keep. The binding follows async work whatever the OpenTelemetry set-up,
 * SDK or none; throws a TypeError for
 * arguments that are not a SessionLog and a function.
 */
export function withSession<T>(log: SessionLog, fn: () => T, options: WithSessionOptions = {}): T {
  if (!(log instanceof SessionLog)) throw new TypeError('withSession expects a SessionLog as its first argument');
  if (typeof fn !== 'function') throw new TypeError('withSession expects a function to run as its second argument');
  const binding: SessionBinding = Object.freeze({
    log,
    agentName: options.agentName,
    mode: options.mode,
    conversationId: options.conversationId,
  });
  return storage.run(binding, fn);
}

/** The session bound to the current context, if any. */
export function getActiveSession(): SessionBinding | undefined {
  return storage.getStore();
}
