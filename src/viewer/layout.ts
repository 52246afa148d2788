// The picture of one violation: the request beside the log (or, for the
// implicit log, the conversation so far) as two columns of messages by
// position, drawn from the event's own bounded attributes. Pure: attributes
// in, rows out, so it is tested without a browser and the page only renders.
//
// What the attributes say: positions before `index` match; at `index` the
// request has `extra.count` messages in surplus and the log
// `missing.count`, with the roles (and, with capture on, previews) of the
// first five; past them both lists hold the same messages again. Where each
// surplus message stood inside the window is not exported, so they are drawn
// from `index` on, which is exact for a single drop, insert or rewrite. The
// `matching.*_roles` attributes give the roles of the matching messages drawn
// one by one beside the difference; an event without them draws those rows
// by position only.

import { isReconstructionKind } from './kinds';
import type { OtlpAttributes, OtlpValue } from './otlp-model';

export type Mark = 'same' | 'extra' | 'missing' | 'moved' | 'rest';

/** One message, or `count` consecutive ones (a collapsed run, or surplus beyond the five sketched). */
export interface Cell {
  position: number;
  count: number;
  mark: Mark;
  role?: string;
  /** For a sketched tool result: the call it answers and the tool's name (identifiers, exported without capture). */
  toolCallId?: string;
  toolName?: string;
  preview?: string;
}

/** One line of the picture: what the request and the log hold there (null: nothing drawn on that side). */
export interface Row {
  request: Cell | null;
  log: Cell | null;
}

export interface Layout {
  /** `session log` for a bound log, `conversation so far` for the implicit one. */
  logTitle: string;
  index: number;
  requestLength: number;
  logLength: number;
  rows: Row[];
  notes: string[];
}

const P = 'nous.session.invariant.';
/** Matching messages drawn one by one on each side of the difference; runs beyond are collapsed into one row. */
const CONTEXT = 2;
/** The sketches an event carries at most (docs/behaviour.md §3.4). */
const SKETCHES = 5;

/** The two columns for a reconstruction violation (`extra_message`, `missing_message`, `order`); null for other kinds. */
export function layoutOf(kind: string, log: string | undefined, a: OtlpAttributes): Layout | null {
  if (!isReconstructionKind(kind)) return null;
  const requestLength = count(a[`${P}request_length`]);
  const logLength = count(a[`${P}log_length`]);
  const rawIndex = count(a[`${P}index`]);
  if (requestLength === undefined || logLength === undefined || rawIndex === undefined) return null;
  const index = Math.min(rawIndex, requestLength, logLength);
  const extraRoles = strings(a[`${P}extra.roles`]);
  const missingRoles = strings(a[`${P}missing.roles`]);
  const extraPreviews = strings(a[`${P}extra.previews`]);
  const missingPreviews = strings(a[`${P}missing.previews`]);
  const before = strings(a[`${P}matching.before_roles`]);
  const requestAfter = strings(a[`${P}matching.request_after_roles`]);
  const logAfter = strings(a[`${P}matching.log_after_roles`]);
  const extraTools = toolsOf(a, 'extra');
  const missingTools = toolsOf(a, 'missing');
  const extraCount = Math.min(count(a[`${P}extra.count`]) ?? extraRoles.length, requestLength - index);
  const missingCount = Math.min(count(a[`${P}missing.count`]) ?? missingRoles.length, logLength - index);

  const rows: Row[] = [];
  // The matching prefix, collapsed but for the last few before the difference.
  const shown = Math.min(index, CONTEXT);
  if (index - shown > 0) rows.push(both(0, index - shown, 'same'));
  // The event carries the roles of the last few matching messages before the difference, oldest first.
  for (let p = index - shown; p < index; p++) rows.push(both(p, 1, 'same', before[before.length - (index - p)]));

  let requestAt: number;
  let logAt: number;
  if (kind === 'order') {
    // Same messages, another order: the first one out of place is marked on both sides.
    if (index < requestLength && index < logLength)
      rows.push({ request: single(index, 'moved', requestAfter[0]), log: single(index, 'moved', logAfter[0]) });
    requestAt = logAt = index + 1;
  } else {
    const sketched = Math.max(Math.min(extraCount, SKETCHES), Math.min(missingCount, SKETCHES));
    for (let k = 0; k < sketched; k++) {
      rows.push({
        request: k < Math.min(extraCount, SKETCHES) ? sketch(index + k, 'extra', extraRoles[k], extraPreviews[k], extraTools[k]) : null,
        log:
          k < Math.min(missingCount, SKETCHES) ? sketch(index + k, 'missing', missingRoles[k], missingPreviews[k], missingTools[k]) : null,
      });
    }
    if (extraCount > SKETCHES || missingCount > SKETCHES) {
      rows.push({
        request: extraCount > SKETCHES ? { position: index + SKETCHES, count: extraCount - SKETCHES, mark: 'extra' } : null,
        log: missingCount > SKETCHES ? { position: index + SKETCHES, count: missingCount - SKETCHES, mark: 'missing' } : null,
      });
    }
    requestAt = index + extraCount;
    logAt = index + missingCount;
  }

  // The rest of both lists: the same messages again (shifted by the surplus), or for an order violation, the
  // same multiset in an order the event does not record.
  const mark: Mark = kind === 'order' ? 'rest' : 'same';
  const requestRest = requestLength - requestAt;
  const logRest = logLength - logAt;
  const rest = Math.max(requestRest, logRest);
  // The after-roles start past the surplus; for an order violation, at the message out of place drawn above.
  const skipped = kind === 'order' ? 1 : 0;
  const shownRest = Math.min(rest, CONTEXT);
  for (let k = 0; k < shownRest; k++) {
    rows.push({
      request: k < requestRest ? single(requestAt + k, mark, requestAfter[k + skipped]) : null,
      log: k < logRest ? single(logAt + k, mark, logAfter[k + skipped]) : null,
    });
  }
  if (rest > shownRest) {
    rows.push({
      request: requestRest > shownRest ? { position: requestAt + shownRest, count: requestRest - shownRest, mark } : null,
      log: logRest > shownRest ? { position: logAt + shownRest, count: logRest - shownRest, mark } : null,
    });
  }

  return {
    logTitle: log === 'implicit' ? 'conversation so far' : 'session log',
    index,
    requestLength,
    logLength,
    rows,
    notes: notesOf(kind, index, a),
  };
}

function notesOf(kind: string, index: number, a: OtlpAttributes): string[] {
  const notes = [`Positions are counted after a leading system overlay, when the request has one; the lists first differ at ${index}.`];
  const differs = strings(a[`${P}differs`]);
  if (differs.length > 0) notes.push(`At ${index} one message stands for another; they differ in: ${differs.join(', ')}.`);
  if (kind === 'order') notes.push('The same messages in another order: the event records where the order first differs, not every move.');
  else
    notes.push(
      'Surplus messages are drawn from the first difference on; the event does not record where inside the difference each stood.',
    );
  return notes;
}

function both(position: number, count: number, mark: Mark, role?: string): Row {
  return count === 1
    ? { request: single(position, mark, role), log: single(position, mark, role) }
    : { request: { position, count, mark }, log: { position, count, mark } };
}

/** One message drawn without a sketch: its role when the event carries it (an older event does not). */
function single(position: number, mark: Mark, role: string | undefined): Cell {
  const cell: Cell = { position, count: 1, mark };
  if (role) cell.role = role;
  return cell;
}

function sketch(position: number, mark: Mark, role: string | undefined, preview: string | undefined, tool: Tool | undefined): Cell {
  const cell: Cell = { position, count: 1, mark };
  if (role !== undefined) cell.role = role;
  if (tool?.callId) cell.toolCallId = tool.callId;
  if (tool?.name) cell.toolName = tool.name;
  if (preview) cell.preview = preview;
  return cell;
}

interface Tool {
  callId: string;
  name: string;
}

/** The sketched messages' tool identifiers on one side (`.tool_call_ids`, `.tool_names`, aligned with the roles). */
function toolsOf(a: OtlpAttributes, side: 'extra' | 'missing'): Tool[] {
  const ids = strings(a[`${P}${side}.tool_call_ids`]);
  const names = strings(a[`${P}${side}.tool_names`]);
  return Array.from({ length: Math.max(ids.length, names.length) }, (_, k) => ({ callId: ids[k] ?? '', name: names[k] ?? '' }));
}

function count(value: OtlpValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function strings(value: OtlpValue | undefined): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : '')) : [];
}
