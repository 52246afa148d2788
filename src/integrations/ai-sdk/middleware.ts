// `sessionInvariantMiddleware()` for the Vercel AI SDK's `wrapLanguageModel`
// (AI SDK 5, 6 and 7): checks the prompt of every model call (each step of a
// multi-step tool loop) before the provider is called.

import { checkModelRequest } from '../../request-path/check-request';
import type { PendingReply } from '../../request-path/reply';
import { claimCall, runClaimed } from '../../request-path/call-scope';
import type { CallOptions } from '../../request-path/model-request';
import { contained } from '../../telemetry/internal-error';
import { fromAiSdkPrompt } from './adapter';
import { FailedAttempts } from './failed-attempts';
import { aiSdkModelRequest } from './model-request';

/** Settings for the calls this middleware checks; each wins over the bound session's, the instrumentation's and the environment's. */
export interface SessionInvariantMiddlewareOptions extends CallOptions {}

/**
 * A language-model middleware for AI SDK 5, 6 and 7. `specificationVersion`
 * is `'v3'`: AI SDK 6 requires that tag, AI SDK 7 accepts any, and AI SDK 5
 * reads none (its middleware has no tag); no version checks the tag at
 * runtime. The hooks are generic so each version's own call options and
 * results pass through unchanged.
 */
export interface SessionInvariantMiddleware {
  readonly specificationVersion: 'v3';
  transformParams<P>(options: { type: 'generate' | 'stream'; params: P; model: unknown }): Promise<P>;
  wrapGenerate<R>(options: { doGenerate: () => PromiseLike<R>; params: unknown; model: unknown }): Promise<R>;
  wrapStream<R>(options: { doStream: () => PromiseLike<R>; params: unknown; model: unknown }): Promise<R>;
}

const SEAM = { name: 'AI SDK middleware', mayThrow: true };

/**
 * A middleware that checks each call's prompt against the log (the `log`
 * option, else the session bound with `withSession`, else the implicit
 * conversation), after the middlewares wrapped inside it, before the
 * provider is called: strict mode throws there. The params are returned as
 * they came, and the provider's result as it came. The call's HTTP request
 * is then left to it (the fetch seam does not check it again), and a
 * generated reply enters the implicit conversation as the model sent it.
 */
export function sessionInvariantMiddleware(options: SessionInvariantMiddlewareOptions = {}): SessionInvariantMiddleware {
  // Where each attempt's reply goes, by its params object (transformParams hands the same object to wrapGenerate).
  const checked = new WeakMap<object, PendingReply | undefined>();
  const failed = new FailedAttempts();
  const promptOf = (params: unknown) => (params as { prompt?: unknown }).prompt;
  const isParams = (params: unknown): params is object => typeof params === 'object' && params !== null;
  /**
   * Runs one attempt. Once it is over its params are forgotten, so the same
   * object sent again is a new request; a failure is remembered (with the log
   * it was checked against) for the retry that may follow.
   */
  async function attempt<R>(params: unknown, run: () => PromiseLike<R>, answered?: (result: R, pending: PendingReply) => void): Promise<R> {
    const pending = isParams(params) ? checked.get(params) : undefined;
    try {
      const result = await runClaimed(run);
      if (pending && answered) contained(SEAM.name, () => answered(result, pending), undefined);
      return result;
    } catch (error) {
      if (isParams(params) && checked.has(params)) contained(SEAM.name, () => failed.record(promptOf(params), pending), undefined);
      throw error;
    } finally {
      if (isParams(params)) checked.delete(params);
    }
  }
  return {
    specificationVersion: 'v3',
    async transformParams({ params, model }) {
      if (!isParams(params) || checked.has(params)) return params;
      claimCall();
      const retry = contained(SEAM.name, () => failed.takeRetry(promptOf(params)), undefined);
      if (retry) {
        // The AI SDK's retry of a failed attempt: the same logical request, checked once.
        checked.set(params, retry.pending);
        return params;
      }
      const { provider, modelId } = (model ?? {}) as { provider?: unknown; modelId?: unknown };
      checked.set(params, checkModelRequest(aiSdkModelRequest(promptOf(params), provider, modelId), options, SEAM));
      return params;
    },
    async wrapGenerate({ doGenerate, params }) {
      return attempt(params, doGenerate, (result, pending) => pending.reply(replyOf(result)));
    },
    async wrapStream({ doStream, params }) {
      // A streamed reply is not read here (that would mean teeing the caller's stream): the next request supplies it.
      return attempt(params, doStream);
    },
  };
}

/** The assistant message a generate result's content parts amount to. */
export function replyOf(result: unknown): ReturnType<typeof fromAiSdkPrompt> {
  const content = (result as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? fromAiSdkPrompt([{ role: 'assistant', content }]) : [];
}
