// Which Cohere requests are model requests (`POST /v2/chat`), and their
// messages in canonical form. The `cohere-ai` client calls
// `globalThis.fetch`, so they reach the fetch seam with no hook of their own.

import type { ModelRequest } from '../../request-path/model-request';
import { modelOf } from '../sdk-client/request-options';
import { fromCohere } from './adapter';

/** `gen_ai.provider.name` of Cohere requests, as the OpenTelemetry GenAI conventions name the provider. */
export const COHERE_PROVIDER = 'cohere';

/** Whether `path` is Cohere's v2 chat, `…/v2/chat` (the one place that says so). */
export function isCohereChatPath(path: string): boolean {
  return path.endsWith('/v2/chat');
}

/** The model request a POST of `body` to `path` is (streamed or not: the body's `stream` says, the reply's content type too). */
export function cohereBodyRequest(path: string, body: Record<string, unknown>): ModelRequest | undefined {
  if (!isCohereChatPath(path)) return undefined;
  const messages = Array.isArray(body.messages) ? fromCohere(body.messages) : body.messages;
  return { provider: COHERE_PROVIDER, model: modelOf(body), messages, replyFormat: 'cohere.chat' };
}
