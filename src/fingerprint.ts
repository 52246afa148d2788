// A canonical string per message such that two messages get the same key
// exactly when `messagesMatch` holds. Used only after a mismatch, to classify
// the violation by multiset; never on the passing path.

import { isSingleTextPart, parseJson } from './message-equality';

const SYSTEM_KEY = 'system';

export function fingerprintKey(entry: unknown): string {
  if (typeof entry !== 'object' || entry === null) return `~entry:${canonical(entry, [])}`;
  const m = entry as Record<string, unknown>;
  if (m.role === 'system') return SYSTEM_KEY;
  return canonical(
    [m.role, contentKey(m.content), toolCallsKey(m.toolCalls), m.toolCallId ?? null, m.name ?? null],
    [],
  );
}

function contentKey(content: unknown): unknown {
  if (content === undefined || content === null) return null;
  if (Array.isArray(content) && content.length === 1) {
    const part = content[0] as { text?: unknown } | null;
    if (part && typeof part.text === 'string' && isSingleTextPart(content, part.text)) return part.text;
  }
  return content;
}

function toolCallsKey(toolCalls: unknown): unknown {
  if (toolCalls === undefined || toolCalls === null) return [];
  if (!Array.isArray(toolCalls)) return { notAList: toolCalls };
  return toolCalls.map((call: unknown) => {
    if (typeof call !== 'object' || call === null) return { notACall: call };
    const c = call as Record<string, unknown>;
    return [c.id, c.name, argumentsKey(c.arguments)];
  });
}

function argumentsKey(args: unknown): unknown {
  if (typeof args !== 'string') return ['value', args];
  const parsed = parseJson(args);
  return parsed ? ['value', parsed.value] : ['text', args];
}

/** Sorted-key serialization that survives cycles and non-JSON values. */
function canonical(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : `~num:${String(value)}`;
    case 'boolean':
      return String(value);
    case 'undefined':
      return '~undefined';
    case 'bigint':
      return `~bigint:${String(value)}`;
    case 'function':
    case 'symbol':
      return `~${typeof value}`;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (ancestors.includes(obj)) return '~cycle';
  if (obj instanceof Date) return `~date:${obj.getTime()}`;
  ancestors.push(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = `[${obj.map((item: unknown) => canonical(item, ancestors)).join(',')}]`;
  } else {
    const record = obj as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    out = `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(record[k], ancestors)}`).join(',')}}`;
  }
  ancestors.pop();
  return out;
}
