// `sessionLogHooks(log)` for LangGraph's prebuilt `createReactAgent`: its
// `preModelHook` and `postModelHook` nodes keep a SessionLog in step with the
// agent's message state.

import { SessionLog } from '../../log/session-log';
import { contained } from '../../telemetry/internal-error';
import { recordAfterModel, recordBeforeModel } from './recorder';

interface GraphState {
  messages?: unknown;
}

/** A state update a graph node returns; `{}` changes nothing. */
type Update = Record<string, unknown>;

/** A hook of your own, run after the recorder's (a trimming `preModelHook` returning `llmInputMessages`, say). */
export type GraphHook = (state: GraphState & Record<string, unknown>, config?: unknown) => Update | Promise<Update>;

/** `createReactAgent({ ..., ...sessionLogHooks(log) })`. */
export interface SessionLogHooks {
  preModelHook(state: GraphState & Record<string, unknown>, config?: unknown): Promise<Update>;
  postModelHook(state: GraphState & Record<string, unknown>, config?: unknown): Promise<Update>;
}

const WHERE = 'sessionLogHooks';

/**
 * `preModelHook` and `postModelHook` for `createReactAgent` that keep `log`
 * in step with the agent, as `sessionLogMiddleware` does for `createAgent`:
 * before each model call what entered the messages since the log last held
 * them (the user's input, tool results), after it the model's reply.
 * `createReactAgent` has no hook around the model call itself, so bind the
 * log around the invoke: `withSession(log, () => agent.invoke(...))`. Hooks
 * of your own run after the recorder's, and their update is returned.
 */
export function sessionLogHooks(log: SessionLog, own: { preModelHook?: GraphHook; postModelHook?: GraphHook } = {}): SessionLogHooks {
  if (!(log instanceof SessionLog)) throw new TypeError('sessionLogHooks expects a SessionLog');
  return {
    async preModelHook(state, config) {
      contained(WHERE, () => recordBeforeModel(log, state?.messages, WHERE), undefined);
      return own.preModelHook ? own.preModelHook(state, config) : {};
    },
    async postModelHook(state, config) {
      contained(WHERE, () => recordAfterModel(log, state?.messages, WHERE), undefined);
      return own.postModelHook ? own.postModelHook(state, config) : {};
    },
  };
}
