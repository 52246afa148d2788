// Which SDK requests are model requests, and their messages in canonical form.

import { fromAnthropic } from '../adapters/anthropic';
import { fromOpenAIChat } from '../adapters/openai-chat';
import { fromOpenAIResponses } from '../adapters/openai-responses';
import { isObject } from '../adapters/shared';

export type Provider = 'openai' | 'anthropic';

export interface ModelRequest {
  provider: Provider;
  model: string | undefined;
  /** Canonical messages; a body that is not a message list is passed on as is, for the check to report. */
  messages: readonly unknown[] | unknown;
  /** Set when the provider holds the conversation (a Responses `previous_response_id`): nothing to check. */
  stateful?: string;
}

/** The SDKs' per-request options: the HTTP method, the API path and the body before serialization. */
export interface RequestOptions {
  method?: unknown;
  path?: unknown;
  body?: unknown;
}

function postBody(options: RequestOptions | undefined): { path: string; body: Record<string, unknown> } | undefined {
  if (!options || typeof options.path !== 'string' || !isObject(options.body)) return undefined;
  if (typeof options.method === 'string' && options.method.toLowerCase() !== 'post') return undefined;
  return { path: options.path.split('?')[0]!, body: options.body };
}

/** Chat Completions and Responses (Azure's deployment paths included). */
export function openAIModelRequest(options: RequestOptions | undefined): ModelRequest | undefined {
  const post = postBody(options);
  if (!post) return undefined;
  const { path, body } = post;
  const model = typeof body.model === 'string' ? body.model : undefined;
  if (path.endsWith('/chat/completions')) {
    const messages = Array.isArray(body.messages) ? fromOpenAIChat(body.messages) : body.messages;
    return { provider: 'openai', model, messages };
  }
  if (path.endsWith('/responses')) {
    if (body.previous_response_id != null || body.conversation != null) {
      return { provider: 'openai', model, messages: [], stateful: 'previous_response_id or conversation' };
    }
    return { provider: 'openai', model, messages: fromOpenAIResponses(body) };
  }
  return undefined;
}

/** Messages `create` and `stream` (beta included; count_tokens and batches are not model requests). */
export function anthropicModelRequest(options: RequestOptions | undefined): ModelRequest | undefined {
  const post = postBody(options);
  if (!post || !/(^|\/)v1\/messages$/.test(post.path)) return undefined;
  const { body } = post;
  const model = typeof body.model === 'string' ? body.model : undefined;
  const messages = Array.isArray(body.messages) ? fromAnthropic({ system: body.system, messages: body.messages }) : body.messages;
  return { provider: 'anthropic', model, messages };
}
