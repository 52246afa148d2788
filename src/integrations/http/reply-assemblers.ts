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

/** Collects a streamed reply event by event; `reply()` once the stream ended. */
export interface ReplyAssembler {
  event(data: unknown, name: string | undefined): void;
  reply(): Reply | undefined;
}

/** `reply` with the id the provider gave it, when it is a non-empty string. */
export function withId(reply: Reply, id: unknown): Reply {
  if (typeof id === 'string' && id !== '') reply.id = id;
  return reply;
}
