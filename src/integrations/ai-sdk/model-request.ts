// One AI SDK language-model call as a model request.

import type { ModelRequest } from '../../request-path/model-request';
import { fromAiSdkPrompt } from './adapter';

/**
 * The request of a call with `prompt` (the language-model prompt, or a
 * call's messages) to the model `provider` / `modelId`. The provider id
 * (`openai.chat`, `anthropic.messages`, ...) is reported by its first part.
 */
export function aiSdkModelRequest(prompt: unknown, provider: unknown, modelId: unknown): ModelRequest {
  const providerName = typeof provider === 'string' ? provider.split('.')[0] || undefined : undefined;
  return {
    provider: providerName,
    model: typeof modelId === 'string' ? modelId : undefined,
    messages: Array.isArray(prompt) ? fromAiSdkPrompt(prompt) : prompt,
  };
}
