// `sessionInvariantMiddleware()` for the Vercel AI SDK's `wrapLanguageModel`:
// checks the provider-neutral prompt of every model call (each step of a
// multi-step tool loop) against the session log, before the provider is called.

import { claimCurrentCall } from './channel';
import { checkAiSdkCall, type AiSdkCheckOptions } from './check-call';

export type SessionInvariantMiddlewareOptions = AiSdkCheckOptions;

/** The parts of a LanguageModelV4 middleware this one uses (assignable to `wrapLanguageModel`'s). */
export interface SessionInvariantMiddleware {
  readonly specificationVersion: 'v4';
  transformParams<P extends { prompt: readonly unknown[] }>(options: {
    type: 'generate' | 'stream';
    params: P;
    model: { provider: string; modelId: string };
  }): Promise<P>;
}

export function sessionInvariantMiddleware(options: SessionInvariantMiddlewareOptions = {}): SessionInvariantMiddleware {
  // Retries call the wrapped model again with the same params: one logical request.
  const seen = new WeakSet<object>();
  return {
    specificationVersion: 'v4',
    async transformParams({ params, model }) {
      if (seen.has(params)) return params;
      seen.add(params);
      claimCurrentCall();
      checkAiSdkCall({ prompt: params.prompt, provider: model.provider, modelId: model.modelId }, options, true);
      return params;
    },
  };
}
