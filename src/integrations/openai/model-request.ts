// Which OpenAI SDK requests are model requests, and their messages in canonical form.

import { referenceId } from '../../reading/canonical';
import { MAX_REQUEST_MESSAGES } from '../../model/messages';
import type { ModelRequest, SerialisedHead } from '../../request-path/model-request';
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
    const stateful = responsesStateful(body);
    if (stateful === 'conversation') {
      return { provider: OPENAI_PROVIDER, model, messages: [], stateful };
    }
    if (stateful === 'previous_response_id') {
      // What it adds to the stored response: its input (the instructions are not carried from one response to the next).
      const previous = body.previous_response_id;
      return {
        provider: OPENAI_PROVIDER,
        model,
        messages: typeof previous === 'string' ? fromOpenAIResponses({ input: body.input }) : [],
        stateful,
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

/** How a Responses request keeps its history on the provider, if it does (the one place that says so). */
function responsesStateful(body: Record<string, unknown>): 'conversation' | 'previous_response_id' | undefined {
  if (body.conversation != null) return 'conversation';
  if (body.previous_response_id != null) return 'previous_response_id';
  return undefined;
}

/** Responses input items as canonical messages; none when one refers to a stored item (the rules resolve those). */
function readInputItems(items: readonly unknown[]): Message[] {
  return items.some((item) => referenceId(item) !== undefined) ? [] : fromOpenAIResponses({ input: items });
}

/**
 * The serialised body of these options' request, when it is a Chat
 * Completions or Responses request, with its stateful setting
 * (`previous_response_id`, `conversation`: the request path then reads it
 * whole).
 */
export function openAISerialised(options: RequestOptions | undefined, text: string): SerialisedHead | undefined {
  const post = postBody(options);
  if (!post) return undefined;
  const model = modelOf(post.body);
  if (isChatCompletionsPath(post.path)) {
    return { provider: OPENAI_PROVIDER, model, body: { text, format: 'openai.chat', readElements: fromOpenAIChat } };
  }
  if (isResponsesPath(post.path)) {
    const stateful = responsesStateful(post.body);
    return { provider: OPENAI_PROVIDER, model, stateful, body: { text, format: 'openai.responses', readElements: readInputItems } };
  }
  return undefined;
}
