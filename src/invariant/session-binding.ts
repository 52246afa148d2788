// Binding a session log to the code that makes model calls, through the
// OpenTelemetry context so the binding follows async work.

import { context, createContextKey } from '@opentelemetry/api';
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

// createContextKey uses Symbol.for, so every copy of this package in a
// process reads and writes the same slot.
const SESSION_KEY = createContextKey('nous-session-invariant.session');

/**
 * Runs `fn` with `log` bound as the active session: every model request made
 * inside it (and in async work it starts) is checked against `log`. A bound
 * log always wins over the implicit conversation the package would otherwise
 * keep. The binding lives in the OpenTelemetry context, so it needs a context
 * manager (`register` makes sure there is one); throws a TypeError for
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
  return context.with(context.active().setValue(SESSION_KEY, binding), fn);
}

/** The session bound to the current context, if any. */
export function getActiveSession(): SessionBinding | undefined {
  return context.active().getValue(SESSION_KEY) as SessionBinding | undefined;
}
