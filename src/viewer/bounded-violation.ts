// The one place that bounds what the viewer keeps of one violation, so the
// memory the store may take is a figure, not whatever senders choose: every
// string is cut, arrays and objects are shortened, and the violation as a
// whole keeps at most `TEXT_BUDGET` characters of text (docs/viewer.md,
// Limits). The package itself writes far less (values cut at 256
// characters, previews at 120, five sketches a side).

import type { OtlpAttributes, OtlpValue } from './otlp-model';
import { setAttribute } from './otlp-model';
import type { ViewerViolation } from './violation';

/** Characters of text one violation keeps at most, over all its fields, keys and attribute values. */
export const TEXT_BUDGET = 16 * 1024;
/** Characters kept of any one string. */
export const MAX_STRING = 2 * 1024;
/** Elements kept of an array, keys of an object, attributes of a violation. */
export const MAX_ITEMS = 32;

const CUT = '…';
const FIELDS = ['service', 'spanName', 'kind', 'mode', 'log', 'agent', 'conversation', 'provider', 'model', 'explanation'] as const;

/** `v` with its text within the bounds, in place; fields first, then the attributes in their order. */
export function boundViolation(v: ViewerViolation): ViewerViolation {
  const budget = { left: TEXT_BUDGET };
  for (const field of FIELDS) {
    const value = v[field];
    if (value !== undefined) (v as unknown as Record<string, string | undefined>)[field] = text(value, budget);
  }
  v.traceId = text(v.traceId, budget);
  v.spanId = text(v.spanId, budget);
  const kept: OtlpAttributes = {};
  let count = 0;
  for (const [key, value] of Object.entries(v.attributes)) {
    if (count++ >= MAX_ITEMS || budget.left <= 0) break;
    setAttribute(kept, text(key, budget), bounded(value, budget, 0));
  }
  v.attributes = kept;
  return v;
}

/** A value within the bounds; every array element and object entry costs one character of the budget, so numbers cannot pile up either. */
function bounded(value: OtlpValue, budget: { left: number }, depth: number): OtlpValue {
  if (typeof value === 'string') return text(value, budget);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 4) return CUT;
  const entries = Array.isArray(value) ? value.slice(0, MAX_ITEMS).map((item, i) => [String(i), item] as const) : Object.entries(value);
  const kept: [string, OtlpValue][] = [];
  for (const [key, item] of entries.slice(0, MAX_ITEMS)) {
    if (budget.left <= 0) break;
    budget.left--;
    kept.push([key, bounded(item, budget, depth + 1)]);
  }
  if (Array.isArray(value)) return kept.map(([, item]) => item);
  const out: Record<string, OtlpValue> = {};
  for (const [key, item] of kept) setAttribute(out, text(key, budget), item);
  return out;
}

/** `s` cut to what the budget and `MAX_STRING` allow, marked when cut; a copy, so a cut string does not keep its source alive. */
function text(s: string, budget: { left: number }): string {
  const room = Math.max(0, Math.min(MAX_STRING, budget.left));
  if (s.length <= room) {
    budget.left -= s.length;
    return s;
  }
  budget.left -= room;
  const kept = s.slice(0, room);
  return `${Buffer.from(kept, 'utf8').toString('utf8')}${CUT}`;
}
