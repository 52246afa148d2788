// Which OpenAI SDK requests are model requests, and their messages in canonical form.

import { referenceId } from '../../reading/canonical';
import { MAX_REQUEST_MESSAGES } from '../../model/messages';
import type { ModelRequest } from '../../request-path/model-request';
import { modelOf, postBody, type RequestOptions } from '../sdk-client/request-options';
import type { Message } from '../../model/messages';
import { fromOpenAIChat, fromOpenAIChatReusing } from './chat-adapter';
import { fromOpenAIResponses } from './responses-adapter';

/** `gen_ai.provider.name` of OpenAI requests, as the OpenTelemetry GenAI conventions name the provider. */
export const OPENAI_PROVIDER = 'openai';

/** The ids of `item_reference` items in a Responses input. */
function referencedItems(input: unknown): string[] {
  if (!Array.isArray(input) || input.length > MAX_REQUEST_MESSAGES) return [];
  const ids: string[] = [];
  for (const item of input as unknown[]) {
    const id = referenceId(item);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** Whether `path` is Chat Completions, `…/chat/completions` (the one place that says so). */
export function isChatCompletionsPath(path: string): boolean {
  return path.endsWith('/chat/completions');
}

/** Whether `path` is Responses, `…/responses` (the one place that says so). */
export function isResponsesPath(path: string): boolean {
  return path.endsWith('/responses');
}

/**
 * Chat Completions and Responses requests (Azure's deployment paths
 * included). A Responses request with `previous_response_id` or
 * `conversation` keeps its history on the provider: it is stateful, and one
 * with `previous_response_id` carries what it adds to the response it names.
 */
export function openAIModelRequest(options: RequestOptions | undefined): ModelRequest | undefined {
  const post = postBody(options);
  if (!post) return undefined;
  // The app's own message objects, often re-sent unchanged: their reading is reused.
  return openAIBodyRequest(post.path, post.body, fromOpenAIChatReusing);
}

/**
 * The model request a POST to `path` with `body` is, for the SDK hook and the
 * fetch seam alike. `readChat` reads Chat Completions messages (the fetch
 * seam parses a fresh body every time, so it has nothing to reuse).
 */
export function openAIBodyRequest(
  path: string,
  body: Record<string, unknown>,
  readChat: (messages: readonly unknown[]) => Message[] = fromOpenAIChat,
): ModelRequest | undefined {
  const model = modelOf(body);
  if (isChatCompletionsPath(path)) {
    const messages = Array.isArray(body.messages) ? readChat(body.messages) : body.messages;
    return { provider: OPENAI_PROVIDER, model, messages, replyFormat: 'openai.chat' };
  }
  if (isResponsesPath(path)) {
    const references = referencedItems(body.input);
    if (body.conversation != null) {
      return { provider: OPENAI_PROVIDER, model, messages: [], stateful: 'conversation' };
    }
    if (body.previous_response_id != null) {
      // What it adds to the stored response: its input (the instructions are not carried from one response to the next).
      const previous = body.previous_response_id;
      return {
        provider: OPENAI_PROVIDER,
        model,
        messages: typeof previous === 'string' ? fromOpenAIResponses({ input: body.input }) : [],
        stateful: 'previous_response_id',
        ...(typeof previous === 'string' ? { continues: previous, replyFormat: 'openai.responses' as const } : {}),
        ...(references.length > 0 ? { references } : {}),
      };
    }
    return {
      provider: OPENAI_PROVIDER,
      model,
      messages: fromOpenAIResponses(body),
      replyFormat: 'openai.responses',
      ...(references.length > 0 ? { references } : {}),
    };
  }
  return undefined;
}
