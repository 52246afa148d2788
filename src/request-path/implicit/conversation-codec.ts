// A conversation record as a shared store keeps it: the one place a record's
// fields are written and read, so that nothing else (message text above all)
// ever reaches the store. A record is fingerprints, content-free sketches and
// the bookkeeping of the lost-reply rule; previews are never written, even
// with content capture on.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import { adoptConversationId, implicitConversationId } from '../../log/conversation-id';
import { Conversation } from './conversation';

/** The format's version: a bucket written in another is read as empty (a new deploy starts its conversations over). */
const FORMAT = 2;

/** A record's identity in the store and the revision it was read at (for the reply's write-back, shared-logs.ts). */
export interface RecordMeta {
  readonly id: string;
  readonly rev: number;
}

const metas = new WeakMap<Conversation, RecordMeta>();

/** The identity a conversation was decoded with, or given when first encoded. */
export function recordMeta(conversation: Conversation): RecordMeta | undefined {
  return metas.get(conversation);
}

/** A sketch as stored: 0 for a system message, else [role, tool calls, tool call id, tool name]. */
type StoredSketch = 0 | [string, number, string | null, string | null];

interface StoredRecord {
  id: string;
  rev: number;
  /**
   * The conversation's `gen_ai.conversation.id`, born with its first record
   * (random per process, then a number) and kept by its branches: every
   * process that reads the record reports the conversation under it.
   */
  c: string;
  /** The "starts like" key. */
  k: Fingerprint;
  /** Fingerprints, as little-endian float64s in base64. */
  f: string;
  s: StoredSketch[];
  /** Last used, epoch ms. */
  u: number;
  /** The last request: run (a string: a trace id, or a process-local run's name), length, prefill, reply observed. */
  r: [string | null, number, boolean, boolean];
}

let counter = 0;
const PROCESS = `${process.pid.toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function newId(): string {
  return `${PROCESS}.${(++counter).toString(36)}`;
}

/**
 * The records of one bucket, newest first, at most `max` (the store's bound
 * per bucket), as the string the store keeps. `changed` are the records this
 * request changed: their revision goes up by one.
 */
export function encodeBucket(conversations: readonly Conversation[], changed: ReadonlySet<Conversation>, max: number): string {
  const records: StoredRecord[] = [];
  for (const conversation of conversations.slice(0, max)) {
    records.push(encodeRecord(conversation, changed.has(conversation)));
  }
  return JSON.stringify({ v: FORMAT, records });
}

function encodeRecord(conversation: Conversation, changed: boolean): StoredRecord {
  let meta = metas.get(conversation);
  if (meta === undefined) metas.set(conversation, (meta = { id: newId(), rev: 1 }));
  else if (changed) metas.set(conversation, (meta = { id: meta.id, rev: meta.rev + 1 }));
  const last = conversation.lastRequest;
  return {
    id: meta.id,
    rev: meta.rev,
    c: implicitConversationId(conversation.number),
    k: conversation.key,
    f: Buffer.from(Float64Array.from(conversation.fingerprints).buffer).toString('base64'),
    s: conversation.sketches().map(encodeSketch),
    u: conversation.lastUsed,
    r: [typeof last.run === 'string' ? last.run : null, last.length, last.prefill, last.replyObserved],
  };
}

function encodeSketch(s: MessageSketch): StoredSketch {
  if (s.role === 'system' || !('toolCalls' in s)) return 0;
  // A participant's name is not kept: only a tool result's, which names a tool.
  return [s.role, s.toolCalls, s.toolCallId, s.toolCallId === null ? null : s.name];
}

/**
 * The conversations of a bucket as the store returned it, newest first.
 * Throws `TypeError` on a value that is not a bucket of this format's
 * (counted as a `decode` error by the caller); an absent bucket is empty.
 */
export function decodeBucket(data: string | null | undefined): Conversation[] {
  if (data === null || data === undefined || data === '') return [];
  const parsed = JSON.parse(data) as { v?: unknown; records?: unknown };
  if (parsed.v !== FORMAT) return [];
  if (!Array.isArray(parsed.records)) throw new TypeError('a bucket without records');
  return parsed.records.map((r) => decodeRecord(r as StoredRecord));
}

function decodeRecord(r: StoredRecord): Conversation {
  if (typeof r.id !== 'string' || typeof r.c !== 'string' || typeof r.f !== 'string' || !Array.isArray(r.s) || !Array.isArray(r.r)) {
    throw new TypeError('a malformed record');
  }
  const bytes = Buffer.from(r.f, 'base64');
  const fingerprints = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
  if (fingerprints.length !== r.s.length) throw new TypeError('a record whose fingerprints and sketches differ in number');
  const sketches = r.s.map(decodeSketch);
  const [run, length, prefill, replyObserved] = r.r;
  const conversation = new Conversation(adoptConversationId(r.c), Array.from(fingerprints), sketches, Number(r.k), Number(r.u), {
    run: run ?? undefined,
    length: Number(length),
    prefill: prefill === true,
    replyObserved: replyObserved === true,
  });
  metas.set(conversation, { id: r.id, rev: Number(r.rev) });
  return conversation;
}

const SYSTEM: MessageSketch = Object.freeze({ role: 'system' });

function decodeSketch(s: StoredSketch): MessageSketch {
  if (s === 0) return SYSTEM;
  const [role, toolCalls, toolCallId, name] = s;
  return { role, preview: null, toolCalls, toolCallId, name };
}
