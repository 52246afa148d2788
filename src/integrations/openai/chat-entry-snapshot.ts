// What the reading of a Chat Completions entry depends on, kept by reference
// so that the next request can tell, without reading the entry again,
// whether it still reads the same (see reading/entry-memo.ts).
//
// The generic reference snapshot walks every key of an entry in order, which
// costs several times a field comparison. The Chat reading only ever looks at
// `role`, `content`, `tool_call_id`, `name` and `tool_calls` (each call's
// `id` and its function's or custom tool's `name`, `arguments`, `input`), so
// for the usual entry, whose values there are all strings or absent, keeping
// those values and comparing them again is exact: the reading is a function
// of them alone, and a primitive compared with `===` cannot have changed.
// Anything else (content parts, an unknown role, whose reading copies every
// key, an object where a string is usual) keeps the generic snapshot.

import { isObject, isWalkable } from '../../reading/canonical';
import { matchesSnapshot, takeSnapshot, type ReferenceSnapshot } from '../../reading/reference-snapshot';
import type { EntrySnapshots } from '../../reading/entry-memo';

/** Roles the Chat reading reads field by field (any other is copied whole). */
const READ_BY_FIELD = new Set<unknown>(['system', 'developer', 'user', 'assistant', 'tool']);

/** Values kept per tool call, after the entry's five and the call count. */
const PER_CALL = 8;

/**
 * An entry's snapshot: `fields`, the values its reading reads (role,
 * content, tool_calls, tool_call_id, name, the call count, then per call: the
 * call, its id, function, custom, the tool's name, whether it has
 * `arguments`, arguments, input), or the generic snapshot of the whole entry.
 */
export type ChatEntrySnapshot = { readonly fields: readonly unknown[] } | { readonly whole: ReferenceSnapshot };

const isLeaf = (value: unknown): boolean => (typeof value !== 'object' || value === null) && typeof value !== 'function';

/** The snapshots the Chat reading's memo keeps. */
export const chatEntrySnapshots: EntrySnapshots<ChatEntrySnapshot> = {
  take(entry) {
    try {
      const fields = readFields(entry);
      if (fields !== undefined) return { fields };
    } catch {
      // a throwing getter: the generic snapshot refuses it too
    }
    const whole = takeSnapshot(entry);
    return whole === undefined ? undefined : { whole };
  },
  matches(entry, snapshot) {
    if ('whole' in snapshot) return matchesSnapshot(entry, snapshot.whole);
    try {
      return fieldsMatch(entry as Record<string, unknown>, snapshot.fields);
    } catch {
      return false;
    }
  },
};

/** The values the reading reads, when each is a primitive (or a list or object holding only those); else undefined. */
function readFields(entry: object): unknown[] | undefined {
  if (!isObject(entry)) return undefined;
  const role = entry.role;
  const content = entry.content;
  const calls = entry.tool_calls;
  const callId = entry.tool_call_id;
  const name = entry.name;
  if (!READ_BY_FIELD.has(role) || !isLeaf(content) || !isLeaf(callId) || !isLeaf(name)) return undefined;
  const fields: unknown[] = [role, content, calls, callId, name];
  if (isLeaf(calls)) return fields;
  if (!isWalkable(calls)) return undefined;
  fields.push(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call: unknown = calls[i];
    if (!isObject(call) || !isLeaf(call.id)) return undefined;
    const fn: unknown = call.function;
    const custom: unknown = call.custom;
    if (!isLeaf(fn) && !isObject(fn)) return undefined;
    if (!isLeaf(custom) && !isObject(custom)) return undefined;
    const tool = isObject(fn) ? fn : isObject(custom) ? custom : undefined;
    const hasArguments = tool !== undefined && 'arguments' in tool;
    const toolName = tool?.name;
    const args = tool?.arguments;
    const input = tool?.input;
    if (!isLeaf(toolName) || !isLeaf(args) || !isLeaf(input)) return undefined;
    fields.push(call, call.id, fn, custom, toolName, hasArguments, args, input);
  }
  return fields;
}

/** Whether the entry still reads the values kept: the same references in every place the reading looks. */
function fieldsMatch(entry: Record<string, unknown>, fields: readonly unknown[]): boolean {
  if (entry.role !== fields[0] || entry.content !== fields[1] || entry.tool_calls !== fields[2]) return false;
  if (entry.tool_call_id !== fields[3] || entry.name !== fields[4]) return false;
  if (fields.length === 5) return true;
  const calls = fields[2] as readonly unknown[];
  if (calls.length !== fields[5]) return false;
  for (let i = 0, at = 6; i < calls.length; i++, at += PER_CALL) {
    const call = calls[i] as Record<string, unknown>;
    if (call !== fields[at]) return false;
    const fn = call.function;
    const custom = call.custom;
    if (call.id !== fields[at + 1] || fn !== fields[at + 2] || custom !== fields[at + 3]) return false;
    const tool = isObject(fn) ? fn : isObject(custom) ? custom : undefined;
    if (tool === undefined) continue;
    if (tool.name !== fields[at + 4] || 'arguments' in tool !== fields[at + 5]) return false;
    if (tool.arguments !== fields[at + 6] || tool.input !== fields[at + 7]) return false;
  }
  return true;
}
