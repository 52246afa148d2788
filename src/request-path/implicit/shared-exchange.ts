// One request's exchange with the shared store, as `SharedLogs` steps it:
// what it holds from its read to its last write (the decision, the
// request's own in-memory store, the reply waiting to be written), and the
// names it writes under (a reply's fingerprint, a run's shared name).

import type { PendingReply, ReplyContext, StoredReplyMessage } from '../reply';
import type { RunKey } from '../run';
import { fingerprintOf, type Fingerprint } from '../../invariant/fingerprint';
import type { Message } from '../../model/messages';
import type { Conversation } from './conversation';
import { MemoryConversationStore, type RecordedReply } from './conversation-store';
import type { Decision, ReadRequest } from './implicit-logs';

/** A request's own in-memory store, which also keeps the fingerprints of the replies recorded in it (for other processes). */
export class RequestStore extends MemoryConversationStore {
  readonly replies: Fingerprint[] = [];

  override recordReply(conversation: Conversation, reply: RecordedReply): void {
    this.replies.push(...reply.fingerprints);
    super.recordReply(conversation, reply);
  }
}

/** A request decided on the shared store: what its writes need. */
export interface Written {
  decision: Decision;
  /** Where the reply goes, in the request's store. */
  pending: PendingReply;
  store: RequestStore;
  /** The records changed since the last write. */
  dirty: Set<Conversation>;
  version: string;
}

/** A reply as the seam hands it over. */
export interface GivenReply {
  messages: readonly Message[];
  stored: readonly StoredReplyMessage[] | undefined;
  context: ReplyContext | undefined;
}

/**
 * One request's exchange with the store, from its read to its last write.
 * Its steps run one after another (`busy`), none on the caller's path.
 */
export class Exchange {
  readonly read: ReadRequest;
  readonly run: string | undefined;
  readonly captureContent: boolean;
  /** The last step started; never rejects. */
  busy: Promise<void> = Promise.resolve();
  /** Decided on the store. */
  written: Written | undefined;
  /** The decision is in the store. */
  wrote = false;
  /** Checked in the process's memory after a failure: where the reply goes there (null: not followed). */
  local: PendingReply | null | undefined;
  /** The reply, given and not yet written. */
  reply: GivenReply | undefined;
  /** Ends the decision's hold (present while it is held). */
  release: (() => void) | undefined;
  /** This process has sent the bucket's next request: nothing is held any longer. */
  succeeded = false;

  constructor(read: ReadRequest, run: string | undefined, captureContent: boolean) {
    this.read = read;
    this.run = run;
    this.captureContent = captureContent;
  }

  /** Resolves once no step is running or due (a step may start another). */
  async quiet(): Promise<void> {
    for (let busy = this.busy; ; busy = this.busy) {
      await busy;
      if (this.busy === busy) return;
    }
  }
}

/** The fingerprint a reply message is marked under: as the implicit log fingerprints a request's messages. */
export function replyFingerprints(messages: readonly Message[]): Fingerprint[] {
  return messages.map((message) => fingerprintOf(message, { ignoreToolResultName: true }));
}

const runNames = new WeakMap<object, string>();
let runCounter = 0;
const PROCESS = `${process.pid.toString(36)}.${Math.random().toString(36).slice(2, 8)}`;

/** A run as a shared record keeps it: a trace id as it is, a framework call (an object) by a name unique to this process. */
export function runName(run: RunKey | undefined): string | undefined {
  if (run === undefined || typeof run === 'string') return run;
  let name = runNames.get(run);
  if (name === undefined) runNames.set(run, (name = `run:${PROCESS}:${(++runCounter).toString(36)}`));
  return name;
}
