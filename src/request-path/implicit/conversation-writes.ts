// What a checked request and an observed reply write to the conversation
// store: the one place that builds a conversation's extension, a new
// conversation from a request, and a branch taken at an earlier point.
// ImplicitLogs decides when; these say what is written.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import type { RunKey } from '../run';
import { Conversation, type LastRequest } from './conversation';
import type { ConversationStore } from './conversation-store';
import { endsInAssistant, type Seen } from './seen-request';
import { sketchOf } from './stored-sketches';

/** Where and when a request is written, and whether its sketches keep previews. */
export interface RequestWrite {
  store: ConversationStore;
  run: RunKey | undefined;
  now: number;
  captureContent: boolean;
}

/**
 * A request that continues `conversation` from `offset` (its first
 * `offset` messages an overlay before the conversation): what it carries past
 * the conversation is appended, and it becomes the conversation's last request.
 */
export function extendWithRequest(write: RequestWrite, conversation: Conversation, seen: Seen, offset: number): Conversation {
  const from = offset + conversation.length;
  write.store.extend(
    conversation,
    seen.fingerprints.slice(from),
    sketchesOf(seen, from, write.captureContent),
    { run: write.run, length: seen.fingerprints.length - offset, prefill: endsInAssistant(seen), replyObserved: false },
    write.now,
  );
  return conversation;
}

/** The request as it was sent becomes a conversation of its own: a new conversation, or a branch of a known one (`number` says which). */
export function conversationOfRequest(write: RequestWrite, seen: Seen, first: number, number: number): Conversation {
  const conversation = new Conversation(
    number,
    seen.fingerprints,
    sketchesOf(seen, 0, write.captureContent),
    seen.fingerprints[first]!,
    write.now,
    { run: write.run, length: seen.messages.length, prefill: endsInAssistant(seen), replyObserved: false },
  );
  write.store.branch(conversation);
  return conversation;
}

/**
 * A branch of `conversation` kept beside it: its first `base` messages, then
 * `fingerprints` (with their `sketches`), last extended by `lastRequest`. It
 * carries the conversation's number and key (another choice the model sent,
 * or a held reply continued after the conversation moved on).
 */
export function branchAt(
  store: ConversationStore,
  conversation: Conversation,
  base: number,
  added: { fingerprints: readonly Fingerprint[]; sketches: readonly MessageSketch[] },
  lastRequest: LastRequest,
  now: number,
): Conversation {
  const fingerprints = [...conversation.fingerprints.slice(0, base), ...added.fingerprints];
  const sketches = conversation.sketches(base).concat(added.sketches);
  const branch = new Conversation(conversation.number, fingerprints, sketches, conversation.key, now, lastRequest);
  store.branch(branch);
  return branch;
}

/** The stored sketches of the request's messages from `from` on. */
function sketchesOf(seen: Seen, from: number, captureContent: boolean): MessageSketch[] {
  const sketches = new Array<MessageSketch>(Math.max(0, seen.messages.length - from));
  for (let i = from; i < seen.messages.length; i++) sketches[i - from] = sketchOf(seen, i, captureContent, false);
  return sketches;
}
