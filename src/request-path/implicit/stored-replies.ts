// Replies the provider stores, which later requests refer to by item id
// (`item_reference`) instead of re-sending them: the AI SDK does this on the
// Responses API. One reply message may be several items (a message item,
// then a function call item per call), and a request may refer to some of
// them and send the rest inline (AI SDK 6 and 7 refer to the message item
// and re-send the calls; AI SDK 5 refers to every item). Read together, the
// pieces stand for the whole message; apart, they are what they are.

import { referenceId } from '../../reading/canonical';
import { fingerprintOf, type Fingerprint } from '../../invariant/fingerprint';
import { isEmptyContent } from '../../invariant/message-equality';
import type { Message, ToolCall } from '../../model/messages';
import type { StoredReplyMessage } from '../reply';
import { LatestSetMap } from './latest-set';

const FINGERPRINT_OPTIONS = { ignoreToolResultName: true } as const;

interface StoredMessage {
  /** The whole message's fingerprint. */
  fingerprint: Fingerprint;
  /** The message without its calls: what a reference to the message item alone, with the calls missing, stands for. */
  alone: Fingerprint;
  pieces: StoredReplyMessage['pieces'];
  calls: readonly ToolCall[];
}

/** A request as the implicit log reads it: its messages, with stored pieces read together, and their fingerprints. */
export interface ReadRequest {
  messages: readonly Message[];
  fingerprints: Fingerprint[];
}

/** Reply messages by the ids of the items they were stored as, for requests that refer to them. */
export class StoredReplies {
  readonly #byId = new LatestSetMap<string, { stored: StoredMessage; index: number }>(10_000);

  /** Remembers the items of a reply's messages (fingerprints and call ids only, no text). */
  record(messages: readonly StoredReplyMessage[]): void {
    for (const { message, pieces } of messages) {
      const stored: StoredMessage = {
        fingerprint: fingerprintOf(message, FINGERPRINT_OPTIONS),
        alone: fingerprintOf({ ...message, toolCalls: undefined }, FINGERPRINT_OPTIONS),
        pieces,
        calls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, arguments: {} })),
      };
      pieces.forEach((piece, index) => this.#byId.set(piece.id, { stored, index }));
    }
  }

  /**
   * The request's messages and fingerprints, references resolved: a reference
   * to the first item of a stored message, followed by the rest of its items
   * (referred to, or inline calls with the same ids), stands for the whole
   * message. Anything else is fingerprinted as it is; `fingerprint` reads a
   * message. `references` are the ids the request's seam found it refers to:
   * only Responses requests have any, and a request without them is read as
   * it is, without looking at each entry for one, nor a copy. Returns
   * undefined when a reference names an item never seen.
   */
  read(
    messages: readonly Message[],
    fingerprint: (message: unknown) => Fingerprint,
    references: readonly string[] | undefined,
  ): ReadRequest | undefined {
    if (references === undefined) {
      const fingerprints = new Array<Fingerprint>(messages.length);
      for (let i = 0; i < messages.length; i++) fingerprints[i] = fingerprint(messages[i]);
      return { messages, fingerprints };
    }
    const read: Message[] = [];
    const fingerprints: Fingerprint[] = [];
    for (let i = 0; i < messages.length; i++) {
      const id = referenceId(messages[i]);
      if (id === undefined) {
        read.push(messages[i]!);
        fingerprints.push(fingerprint(messages[i]));
        continue;
      }
      const found = this.#byId.get(id);
      if (found === undefined) return undefined;
      const { stored, index } = found;
      const consumed = index === 0 ? this.#whole(stored, messages, i) : 0;
      if (consumed > 0) {
        // Stands for the whole message: its calls (by id) keep tool results paired.
        read.push({ role: 'assistant', content: null, toolCalls: stored.calls.slice() });
        fingerprints.push(stored.fingerprint);
        i += consumed - 1;
      } else {
        // A piece without the rest of its message: the message item alone, or a call on its own.
        read.push(messages[i]!);
        fingerprints.push(index === 0 ? stored.alone : piecePrint(id));
      }
    }
    return { messages: read, fingerprints };
  }

  /** How many request entries from `at` make up `stored` entire (0 if they do not). */
  #whole(stored: StoredMessage, messages: readonly Message[], at: number): number {
    let piece = 1;
    let i = at + 1;
    while (piece < stored.pieces.length && i < messages.length) {
      const entry = messages[i];
      const id = referenceId(entry);
      if (id !== undefined) {
        if (id !== stored.pieces[piece]!.id) break;
        piece++;
        i++;
        continue;
      }
      // Inline calls: an assistant message with no content whose calls are the next pieces' calls, in order.
      if (entry?.role !== 'assistant' || !isEmptyContent(entry.content) || !Array.isArray(entry.toolCalls)) break;
      const calls = entry.toolCalls;
      if (calls.length === 0 || !calls.every((call, k) => call?.id === stored.pieces[piece + k]?.callId)) break;
      piece += calls.length;
      i++;
    }
    return piece === stored.pieces.length ? i - at : 0;
  }
}

/** A stand-in fingerprint for a lone call item: it matches nothing but itself. */
function piecePrint(id: string): Fingerprint {
  return fingerprintOf({ role: 'item_reference', content: id });
}
