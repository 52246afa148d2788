// What a seam reports back to the request path once the model has answered,
// and how a provider stores a reply's messages: the types the check, the
// implicit log and the reply assemblers share, kept apart so none of them
// imports another for a type.

import type { Message } from '../model/messages';

/**
 * One message of a reply as the provider stored it: the items it is made of
 * (a Responses message item, then one item per function call), by id, in
 * order. A later request may refer to them (`item_reference`) instead of
 * re-sending them, all of them or some, with the rest sent inline.
 */
export interface StoredReplyMessage {
  message: Message;
  /** The items, in order; a call's item names the call id it carries. */
  pieces: ReadonlyArray<{ readonly id: string; readonly callId?: string | undefined }>;
}

/** What else a seam knows of a reply it reports (see `Reply` in integrations/http/reply-assemblers.ts). */
export interface ReplyContext {
  /** The other choices of a request with `n` > 1: replies the model sent as well, any of which the app may continue with. */
  readonly siblings?: ReadonlyArray<readonly Message[]> | undefined;
  /** The provider's id for the reply, which a later request may continue from (`previous_response_id`, a thread's `previous_message_id`). */
  readonly id?: string | undefined;
}

/** What the seam reports back once the model has answered: its reply, in canonical form. */
export interface PendingReply {
  /**
   * The model's reply; `stored`, the reply's messages as items a later
   * request may refer to by id; `context`, its sibling choices and its id.
   */
  reply(messages: readonly Message[], stored?: readonly StoredReplyMessage[], context?: ReplyContext): void;
  /**
   * Present when the check is reported asynchronously (a shared store):
   * resolves once it is reported, or after a short bound (shared-logs.ts),
   * and the seam hands the caller the body only then, so that a violation
   * lands on the request's span. Never waits for a write; never rejects.
   */
  settled?(): Promise<void>;
}
