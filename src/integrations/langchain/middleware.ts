// `sessionLogMiddleware(log)` for langchain's `createAgent`: the agent's
// message state recorded into a SessionLog around every model call, and each
// model call made with the log bound, so the openai client hook checks the
// request the provider is sent against it.

import { SessionLog } from '../../log/session-log';
import { getActiveSession, withSession } from '../../invariant/session-binding';
import type { Mode } from '../../invariant/mode';
import { contained } from '../../telemetry/internal-error';
import { recordAfterModel, recordBeforeModel } from './recorder';

/** Settings bound along with the log for the agent's model calls (as `withSession`'s). */
export interface SessionLogMiddlewareOptions {
  /** Recorded as `gen_ai.agent.name` on the checks of the agent's model calls. */
  agentName?: string;
  /** The mode for the agent's model calls. */
  mode?: Mode;
}

interface AgentStateLike {
  messages?: unknown;
}

/** What `wrapModelCall` reads of langchain's model request: the agent's state as the model node received it. */
interface ModelRequestLike {
  state?: AgentStateLike;
}

/**
 * The object `createMiddleware` would build: langchain's `createAgent` reads
 * these hooks and the brand (a `Symbol.for`, so any copy of langchain
 * accepts it). Typed structurally, so this package needs no langchain types.
 */
export interface SessionLogMiddleware {
  readonly name: 'SessionLogMiddleware';
  afterModel(state: AgentStateLike): undefined;
  wrapModelCall<Request extends ModelRequestLike, Response>(request: Request, handler: (request: Request) => Response): Response;
}

const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');
const WHERE = 'sessionLogMiddleware';

/**
 * A `createAgent` middleware that keeps `log` in step with the agent. Its
 * `wrapModelCall` appends what entered the agent's messages since the log
 * last held them (the user's input, tool results), read from the state the
 * model node received (after every `beforeModel` hook, whatever the request
 * then becomes), and runs the call with `log` bound (as `withSession(log,
 * ..., options)`, unless that log is bound already), so the request the
 * provider is sent is checked against the log. Its `afterModel` appends what
 * the model node added (the reply). Assistant messages are only recorded from
 * the model, so history an app or another middleware drops, rewrites, invents
 * or reorders is reported, not recorded. List it first: its `wrapModelCall`
 * is then the outermost and its `afterModel` runs last, after the other
 * middlewares' (a human-in-the-loop edit of the reply, say).
 */
export function sessionLogMiddleware(log: SessionLog, options: SessionLogMiddlewareOptions = {}): SessionLogMiddleware {
  if (!(log instanceof SessionLog)) throw new TypeError('sessionLogMiddleware expects a SessionLog');
  return {
    [MIDDLEWARE_BRAND]: true,
    name: 'SessionLogMiddleware',
    afterModel(state) {
      contained(WHERE, () => recordAfterModel(log, state?.messages, WHERE), undefined);
      return undefined;
    },
    wrapModelCall(request, handler) {
      contained(WHERE, () => recordBeforeModel(log, request?.state?.messages, WHERE), undefined);
      if (getActiveSession()?.log === log) return handler(request);
      return withSession(log, () => handler(request), options);
    },
  } as SessionLogMiddleware;
}
