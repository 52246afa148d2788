// The model's reply as the transport seams hand it on, whatever the API:
// each provider's wire format (../wire-format.ts) reads it from a JSON body
// or assembles it from a stream of events, in the provider's folder
// (`replies.ts`); `replyFromBody` and `replyAssembler` in ../providers.ts
// pick them by reply format.

import type { Message } from '../../model/messages';
import type { StoredReplyMessage } from '../../request-path/reply';

/**
 * The model's reply, and its messages as the items the provider stored (a
 * later request may refer to them instead of re-sending them). `siblings`:
 * the other choices of a Chat Completions request with `n` > 1, each a reply
 * the model sent as well. `id`: the id the provider gave the reply (a
 * Responses `id`, an Anthropic message `id`), which a later request may
 * continue from (`previous_response_id`, `thread.previous_message_id`).
 */
export interface Reply {
  messages: Message[];
  items?: StoredReplyMessage[];
  siblings?: Message[][];
  id?: string;
}

/** Collects a streamed reply event by event (an SSE event's data, or an NDJSON line); `reply()` once the stream ended. */
export interface ReplyAssembler {
  event(data: unknown, name: string | undefined): void;
  reply(): Reply | undefined;
  /**
   * Whether the events so far end the reply (Ollama's `done: true`), for a
   * stream whose caller stops reading there without reading the body's end
   * or cancelling it: the reply is then taken at once. Absent: the reply is
   * taken when the caller ends or cancels the body.
   */
  finished?(): boolean;
}

/** `reply` with the id the provider gave it, when it is a non-empty string. */
export function withId(reply: Reply, id: unknown): Reply {
  if (typeof id === 'string' && id !== '') reply.id = id;
  return reply;
}
