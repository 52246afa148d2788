// `sessionInvariantMiddleware()` for the Vercel AI SDK's `wrapLanguageModel`:
// checks the provider-neutral prompt of every model call (each step of a
// multi-step tool loop) before the provider is called.

import { checkModelRequest } from '../../request-path/check-request';
import type { CallOptions } from '../../request-path/model-request';
import { aiSdkModelRequest } from './model-request';
import { claimCurrentCall } from './telemetry-channel';

/** Settings for the calls this middleware checks; each wins over the bound session's, the instrumentation's and the environment's. */
export interface SessionInvariantMiddlewareOptions extends CallOptions {}

/** The parts of a language-model middleware this one uses (assignable to `wrapLanguageModel`'s). */
export interface SessionInvariantMiddleware {
  readonly specificationVersion: 'v4';
  transformParams<P extends { prompt: readonly unknown[] }>(options: {
    type: 'generate' | 'stream';
    params: P;
    model: { provider: string; modelId: string };
  }): Promise<P>;
}

const SEAM = { name: 'AI SDK middleware', mayThrow: true };

/**
 * A middleware that checks each call's prompt against the log (the `log`
 * option, else the session bound with `withSession`, else the implicit
 * conversation). It sees the prompt after the middlewares wrapped inside it,
 * and strict mode throws before the provider is called. The params are
 * returned as they came.
 */
export function sessionInvariantMiddleware(options: SessionInvariantMiddlewareOptions = {}): SessionInvariantMiddleware {
  // The AI SDK calls the wrapped model again with the same params for a retry: one logical request.
  const seen = new WeakSet<object>();
  return {
    specificationVersion: 'v4',
    async transformParams({ params, model }) {
      if (!seen.has(params)) {
        seen.add(params);
        claimCurrentCall();
        checkModelRequest(aiSdkModelRequest(params.prompt, model?.provider, model?.modelId), options, SEAM);
      }
      return params;
    },
  };
}
