// Which Anthropic SDK requests are model requests, and their messages in canonical form.

import type { ModelRequest, SerialisedHead } from '../../request-path/model-request';
import { isObject } from '../../reading/canonical';
import { modelOf, postBody, type RequestOptions } from '../sdk-client/request-options';
import { fromAnthropic } from './adapter';
import type { Message } from '../../model/messages';

/** `gen_ai.provider.name` of Anthropic requests, as the OpenTelemetry GenAI conventions name the provider. */
export const ANTHROPIC_PROVIDER = 'anthropic';

/** Messages `create` and `stream` (beta included; count_tokens and batches are not model requests). */
export function anthropicModelRequest(options: RequestOptions | undefined): ModelRequest | undefined {
  const post = postBody(options);
  if (!post) return undefined;
  return anthropicBodyRequest(post.path, post.body);
}

const SERVER_THREAD = 'a server-held thread (thread.type "continue")';

/** Whether the request continues a thread the server holds (the one place that says so). */
function continuesThread(body: Record<string, unknown>): body is Record<string, unknown> & { thread: Record<string, unknown> } {
  return isObject(body.thread) && body.thread.type === 'continue';
}

/** Whether `path` is the Messages endpoint, `v1/messages` (after any prefix). */
export function isAnthropicMessagesPath(path: string): boolean {
  return /(^|\/)v1\/messages$/.test(path);
}

/**
 * The model request a POST to `path` with `body` is. A request that
 * continues a thread the server holds (`thread: { type: 'continue',
 * previous_message_id }`, as a `client.beta.messages.thread()` and the beta
 * tool runner send) carries only what is new: it is stateful, and names the
 * stored reply it continues from.
 */
export function anthropicBodyRequest(path: string, body: Record<string, unknown>): ModelRequest | undefined {
  if (!isAnthropicMessagesPath(path)) return undefined;
  const model = modelOf(body);
  if (continuesThread(body)) {
    const previous = body.thread.previous_message_id;
    // What it adds to the stored reply: its messages (a continue carries no system prompt; the thread keeps it).
    return {
      provider: ANTHROPIC_PROVIDER,
      model,
      messages: typeof previous === 'string' && Array.isArray(body.messages) ? fromAnthropic({ messages: body.messages }) : [],
      stateful: SERVER_THREAD,
      ...(typeof previous === 'string' && Array.isArray(body.messages)
        ? { continues: previous, replyFormat: 'anthropic.messages' as const }
        : {}),
    };
  }
  const messages = Array.isArray(body.messages) ? fromAnthropic({ system: body.system, messages: body.messages }) : body.messages;
  return { provider: ANTHROPIC_PROVIDER, model, messages, replyFormat: 'anthropic.messages' };
}

const readMessages = (entries: readonly unknown[]): Message[] => fromAnthropic({ messages: entries });

/** The serialised body of a Messages request, stateful when it continues a server-held thread (the request path then reads it whole). */
export function anthropicSerialised(options: RequestOptions | undefined, text: string): SerialisedHead | undefined {
  const post = postBody(options);
  if (!post || !isAnthropicMessagesPath(post.path)) return undefined;
  return {
    provider: ANTHROPIC_PROVIDER,
    model: modelOf(post.body),
    stateful: continuesThread(post.body) ? SERVER_THREAD : undefined,
    body: { text, format: 'anthropic.messages', readElements: readMessages },
  };
}
