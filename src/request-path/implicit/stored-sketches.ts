// The sketches the implicit log keeps of the messages it has seen: no text
// unless content capture is on, and one shared frozen object per distinct
// shape. The one place that decides what a kept sketch holds and how sketches
// are interned.

import { stableSlot } from '../../invariant/stable-messages';
import { sketch, withoutPreview, type MessageSketch } from '../../invariant/sketch';
import type { Seen } from './seen-request';

/**
 * A sketch to keep: no text (unless content capture is on), and one shared
 * object per distinct shape. Built field by field when content is not kept:
 * a branch keeps a sketch of every message, and the preview would only be
 * computed to be dropped.
 */
export function storedSketch(message: unknown, captureContent: boolean): MessageSketch {
  if (captureContent) return sketch(message);
  // A message the seam reuses from request to request (it never changes): sketched once.
  const slot = stableSlot(message);
  if (slot !== undefined) return (slot.sketch ??= contentFreeSketch(message));
  return contentFreeSketch(message);
}

/** A request message's sketch: its preview is only kept while the request is checked, unless content capture is on. */
export function visibleSketch(message: unknown, captureContent: boolean): MessageSketch {
  const s = sketch(message);
  return captureContent || !('preview' in s) ? s : { ...s, preview: null };
}

/**
 * The sketch of the request's message `i`, stored (`storedSketch`) or
 * visible (`visibleSketch`): for a message the request was not read for
 * (in a range of `seen.known`), the conversation's sketch of it, with no
 * preview. (The violation path takes those ranges only with content capture
 * off, when every sketch of a message is its content-free one.)
 */
export function sketchOf(seen: Seen, i: number, captureContent: boolean, visible: boolean): MessageSketch {
  const ranges = seen.known;
  for (let r = 0; ranges !== undefined && r < ranges.length; r++) {
    const known = ranges[r]!;
    if (i >= known.from && i < known.to) return withoutPreview(known.sketches[i - known.from]!);
  }
  return visible ? visibleSketch(seen.messages[i], captureContent) : storedSketch(seen.messages[i], captureContent);
}

// The sketch and name tables' policy: cleared whole once past 10,000 entries. A
// table only saves memory (a sketch is rebuilt the same when not found), so
// dropping it costs a few allocations, and no per-read bookkeeping is paid.
const MAX_INTERNED = 10_000;
const interned = new Map<string, MessageSketch>();
/** Sketches of unnamed user and assistant messages, by tool-call count (below `USUAL_CALLS`). */
const USUAL_ROLES: Readonly<Record<string, MessageSketch[] | undefined>> = Object.assign(Object.create(null) as object, {
  user: [],
  assistant: [],
});
const USUAL_CALLS = 16;

function contentFreeSketch(message: unknown): MessageSketch {
  const m = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {};
  const role = typeof m.role === 'string' ? m.role : 'invalid';
  if (role === 'system') return SYSTEM_SKETCH;
  const toolCalls = Array.isArray(m.toolCalls) ? m.toolCalls.length : 0;
  const toolCallId = typeof m.toolCallId === 'string' ? m.toolCallId : null;
  const name = typeof m.name === 'string' ? m.name : null;
  // A tool call id is unique: its sketch is shared by nothing, so it is not worth a table entry. Its name (a tool's
  // name, one of a few) is kept as one string per distinct name, not one per message.
  if (toolCallId !== null) return { role, preview: null, toolCalls, toolCallId, name: name === null ? null : internedName(name) };
  // The usual shapes (a user message, an assistant message with a few calls) skip building a key.
  const usual = name === null && toolCalls < USUAL_CALLS ? USUAL_ROLES[role] : undefined;
  if (usual !== undefined) return (usual[toolCalls] ??= Object.freeze({ role, preview: null, toolCalls, toolCallId, name }));
  const key = `${role}\u0000${toolCalls}\u0000${name}`;
  let shared = interned.get(key);
  if (shared === undefined) {
    if (interned.size > MAX_INTERNED) interned.clear();
    interned.set(key, (shared = Object.freeze({ role, preview: null, toolCalls, toolCallId, name })));
  }
  return shared;
}

const names = new Map<string, string>();
/** One copy of each tool name the sketches keep (cleared past `MAX_INTERNED` names, as the sketch table is). */
function internedName(name: string): string {
  const kept = names.get(name);
  if (kept !== undefined) return kept;
  if (names.size > MAX_INTERNED) names.clear();
  names.set(name, name);
  return name;
}

const SYSTEM_SKETCH: MessageSketch = Object.freeze({ role: 'system' });
