// A request the byte fast path did not take, read from where its bytes first
// differ from a kept conversation's: the one place that builds such a
// reading. The elements before the last equal mark (byte-record.ts) are the
// conversation's own messages, and so is a run of whole blocks found equal
// after the difference (shifted by what was dropped or inserted): their
// fingerprints and sketches are taken from the conversation, and only the
// elements between and after are parsed, read and fingerprinted. The rules
// (implicit-rules.ts) then decide on it exactly as on the request read
// whole: what a violation reports is the same, found for the cost of the
// elements around the difference.

import { SYSTEM_FINGERPRINT, type Fingerprint } from '../../invariant/fingerprint';
import { MAX_REQUEST_MESSAGES, type Message } from '../../model/messages';
import { MARK_EVERY } from './bytes/byte-record';
import type { MessageSketch } from '../../invariant/sketch';
import type { SerialisedBody } from '../model-request';
import type { Conversation } from './conversation';
import type { ByteDivergence, ResumedElements } from './bytes/byte-conversations';
import type { ElementSpan } from './bytes/json-scan';
import { orphanedToolResult } from './pairing';
import type { ReadRequest } from './seen-request';

/** Wire formats whose reader makes exactly one canonical message of each element, so an element's index is its message's. */
const ONE_MESSAGE_PER_ELEMENT: ReadonlySet<SerialisedBody['format']> = new Set(['openai.chat']);

/** How many marks the reading may try, going back, to take in the calls of the tool results after the difference. */
const MAX_TRIES = 3;

/** What was read of a request from its first difference on, and how much of it was read (for tests). */
export interface DivergentReading {
  read: ReadRequest;
  /** The request's non-system elements taken from the conversation, unread. */
  known: number;
}

/**
 * The request `body` as the rules read it, with its elements up to the
 * divergence taken from the conversation; undefined when that cannot be
 * done exactly (the caller then reads the request whole): a wire format
 * whose elements are not one message each, a conversation that changed
 * since its bytes were recorded or whose last request ended in a prefill,
 * leading system elements or a tail that do not read as messages one for
 * one, or a tool result after the difference whose call is before the
 * earliest mark tried (then pairing and naming need the whole request).
 */
export function readFromDivergence(
  body: SerialisedBody,
  divergence: ByteDivergence<Conversation>,
  fingerprint: (message: unknown) => Fingerprint,
): DivergentReading | undefined {
  const { conversation, layout } = divergence;
  const readElements = body.readElements;
  if (readElements === undefined || !ONE_MESSAGE_PER_ELEMENT.has(body.format)) return undefined;
  if (divergence.since !== conversation.lastRequest || conversation.lastRequest.prefill) return undefined;
  // The conversation's index of the recorded bytes' first non-system element.
  const start = divergence.messagesAt - divergence.elementsAt;
  if (start < 0 || divergence.messagesAt > conversation.length) return undefined;
  const system = parsed(body.text, layout.open + 1, layout.systemEnd, readElements);
  if (system === undefined || system.length !== layout.systemCount || system.some((m) => m?.role !== 'system')) return undefined;
  if (divergence.resumed !== undefined) {
    const around = readAroundRun(body.text, divergence, divergence.resumed, system, start, readElements, fingerprint);
    if (around !== undefined) return around;
  }
  // From one mark before the last equal one: a tool result just after a mark usually answers a call just before it.
  const tries = divergence.equal.length > 1 ? divergence.equal.slice(1, 1 + MAX_TRIES) : divergence.equal;
  for (const known of tries) {
    const spans = divergence.tailAfter(known);
    if (spans === undefined) return undefined;
    // The request's last message is read, never a known one: a prefill the reply continues is merged with it.
    if (spans.length === 0) continue;
    const tail = parsed(body.text, spans[0]!.start, spans[spans.length - 1]!.end, readElements);
    if (tail === undefined || tail.length !== spans.length) return undefined;
    // The known elements hold no orphan (the bytes were recorded from a request that passed); a tool result after
    // them whose call is not after them too is read again from an earlier mark.
    let orphan: unknown;
    try {
      orphan = orphanedToolResult(tail);
    } catch {
      return undefined;
    }
    if (orphan !== undefined) continue;
    if (system.length + known + tail.length > MAX_REQUEST_MESSAGES) return undefined;
    const fingerprints = new Array<Fingerprint>(system.length + known + tail.length);
    let at = 0;
    for (const message of system) fingerprints[at++] = fingerprint(message);
    const kept = conversation.fingerprints;
    for (let i = 0; i < known; i++) fingerprints[at++] = kept[start + i]!;
    for (const message of tail) fingerprints[at++] = fingerprint(message);
    const sketches = conversation.sketches(start + known).slice(start);
    // Where the rules read a known message, they read its role: the sketch has it (and sketchOf gives the sketch).
    const messages = [...system, ...(sketches as unknown as Message[]), ...tail];
    const first = system.length;
    if (fingerprints[first] === SYSTEM_FINGERPRINT) return undefined;
    return {
      read: {
        seen: { messages, fingerprints, known: [{ from: first, to: first + known, sketches }] },
        orphan: undefined,
        first,
        key: fingerprints[first]!,
      },
      known,
    };
  }
  return undefined;
}

/**
 * The request read around a run of recorded elements after its difference
 * (`run`): the elements before the difference and the run taken from the
 * conversation, the elements between them and after the run read. Undefined
 * when that cannot be done exactly (the caller then reads from the
 * difference to the end): the request ends in the run (its last message is
 * always read), the elements read do not read one for one, or a tool
 * result read or in the run may answer a call in a part not read the same
 * (then pairing and naming need more of the request).
 */
function readAroundRun(
  text: string,
  divergence: ByteDivergence<Conversation>,
  run: ResumedElements,
  system: readonly Message[],
  start: number,
  readElements: (entries: readonly unknown[]) => readonly Message[],
  fingerprint: (message: unknown) => Fingerprint,
): DivergentReading | undefined {
  if (run.after.length === 0) return undefined;
  // A result read just after the known elements usually answers a call just before them: read from an earlier mark.
  // One just after the run, a call at its end: leave the run's last block out of it.
  let earlier = 0;
  let shorter = 0;
  for (;;) {
    const known = divergence.equal[earlier];
    const count = run.count - shorter * MARK_EVERY;
    if (known === undefined || earlier > MAX_TRIES || count <= 0) return undefined;
    const attempt = readAround(text, divergence, run, known, count, system, start, readElements, fingerprint);
    if (attempt === 'before') earlier++;
    else if (attempt === 'after') shorter++;
    else return attempt;
  }
}

/** One attempt of `readAroundRun`: the first `known` elements and `count` of the run known; which side needs more read, if a side does. */
function readAround(
  text: string,
  divergence: ByteDivergence<Conversation>,
  run: ResumedElements,
  known: number,
  count: number,
  system: readonly Message[],
  start: number,
  readElements: (entries: readonly unknown[]) => readonly Message[],
  fingerprint: (message: unknown) => Fingerprint,
): DivergentReading | 'before' | 'after' | undefined {
  const { recordedAt, shift } = run;
  const between = [...divergence.recordedSpans(known, divergence.equal[0]!, 0), ...run.between];
  const after = [...divergence.recordedSpans(recordedAt + count, recordedAt + run.count, shift), ...run.after];
  // Read as one list, so a result after the run is named after a call between as when read whole.
  const read = parsedRuns(text, between, after, readElements);
  if (read === undefined || read.length !== between.length + after.length) return undefined;
  const window = read.slice(0, between.length);
  const tail = read.slice(between.length);
  try {
    // Each part answers its own results: then no call in a part not read is needed to pair or name them.
    if (orphanedToolResult(window) !== undefined) return 'before';
    if (orphanedToolResult(tail) !== undefined) return 'after';
  } catch {
    return undefined;
  }
  const total = system.length + known + window.length + count + tail.length;
  if (total > MAX_REQUEST_MESSAGES) return undefined;
  const { conversation } = divergence;
  const sketches = conversation.sketches(start + recordedAt + count);
  const before = sketches.slice(start, start + known);
  const resumed = sketches.slice(start + recordedAt, start + recordedAt + count);
  const kept = conversation.fingerprints;
  const windowFingerprints = window.map(fingerprint);
  const replaced = {
    sketches: sketches.slice(start + known, start + recordedAt),
    fingerprints: kept.slice(start + known, start + recordedAt),
  };
  if (!answeredAsRecorded(resumed, replaced, window, windowFingerprints)) return undefined;
  const fingerprints = new Array<Fingerprint>(total);
  let at = 0;
  for (const message of system) fingerprints[at++] = fingerprint(message);
  for (let i = 0; i < known; i++) fingerprints[at++] = kept[start + i]!;
  for (const windowFingerprint of windowFingerprints) fingerprints[at++] = windowFingerprint;
  for (let i = 0; i < count; i++) fingerprints[at++] = kept[start + recordedAt + i]!;
  for (const message of tail) fingerprints[at++] = fingerprint(message);
  const first = system.length;
  if (fingerprints[first] === SYSTEM_FINGERPRINT) return undefined;
  // Where the rules read a known message, they read its role: the sketch has it (and sketchOf gives the sketch).
  const messages = [...system, ...(before as unknown as Message[]), ...window, ...(resumed as unknown as Message[]), ...tail];
  const runFrom = first + known + window.length;
  return {
    read: {
      seen: {
        messages,
        fingerprints,
        known: [
          { from: first, to: first + known, sketches: before },
          { from: runFrom, to: runFrom + count, sketches: resumed },
        ],
      },
      orphan: undefined,
      first,
      key: fingerprints[first]!,
    },
    known: known + count,
  };
}

/**
 * Whether the tool results in the run answer, and are named after, the
 * calls they were when recorded. Each answered a call in the prefix, in the
 * run, or among the recorded elements the request replaced (`replaced`):
 * every message of those that made calls must be among the messages read
 * between (`between`, by fingerprint, which covers the calls' ids), so no
 * call a result in the run answered is gone; and a result whose id a call
 * read between makes must have that call's name (the latest call names it).
 */
function answeredAsRecorded(
  run: readonly MessageSketch[],
  replaced: { sketches: readonly MessageSketch[]; fingerprints: readonly Fingerprint[] },
  between: readonly Message[],
  betweenFingerprints: readonly Fingerprint[],
): boolean {
  let present: Set<Fingerprint> | undefined;
  for (let i = 0; i < replaced.sketches.length; i++) {
    const s = replaced.sketches[i]!;
    if (!('toolCalls' in s) || s.toolCalls === 0) continue;
    present ??= new Set(betweenFingerprints);
    if (!present.has(replaced.fingerprints[i]!)) return false;
  }
  const calls = new Map<unknown, string | null>();
  for (const message of between)
    for (const call of message.role === 'assistant' ? (message.toolCalls ?? []) : []) calls.set(call.id, call.name ?? null);
  for (const s of run) {
    if (s.role !== 'tool' || !('toolCallId' in s)) continue;
    if (calls.has(s.toolCallId) && calls.get(s.toolCallId) !== s.name) return false;
  }
  return true;
}

/** Two runs of elements of `text`, read as one list of canonical messages; undefined when they do not parse or read. */
function parsedRuns(
  text: string,
  first: readonly ElementSpan[],
  second: readonly ElementSpan[],
  readElements: (entries: readonly unknown[]) => readonly Message[],
): readonly Message[] | undefined {
  const part = (spans: readonly ElementSpan[]): string =>
    spans.length === 0 ? '' : text.slice(spans[0]!.start, spans[spans.length - 1]!.end);
  const joined = first.length === 0 ? part(second) : second.length === 0 ? part(first) : `${part(first)},${part(second)}`;
  try {
    return readElements(JSON.parse(`[${joined}]`) as unknown[]);
  } catch {
    return undefined;
  }
}

/** The elements in `text[from, to)` (a run of array elements), read as canonical messages; undefined when they do not parse or read. */
function parsed(
  text: string,
  from: number,
  to: number,
  readElements: (entries: readonly unknown[]) => readonly Message[],
): readonly Message[] | undefined {
  if (to <= from) return [];
  try {
    return readElements(JSON.parse(`[${text.slice(from, to)}]`) as unknown[]);
  } catch {
    return undefined;
  }
}
