// Bounded, content-light summaries of messages for violation details: a
// violation must never dump a (multimodal) transcript into a log line.

export const PREVIEW_LENGTH = 120;
export const MAX_SKETCHES = 5;

export type MessageSketch = SystemSketch | NonSystemSketch;

export interface SystemSketch {
  role: 'system';
}

export interface NonSystemSketch {
  /** The role as sent; a malformed request entry may carry one outside `Role`. */
  role: string;
  /** First 120 characters of string content, `"[N content parts]"` for a part list, `null` otherwise. */
  preview: string | null;
  /** How many tool calls the message carries. */
  toolCalls: number;
  toolCallId: string | null;
  name: string | null;
}

export function sketch(entry: unknown): MessageSketch {
  const m = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
  if (m.role === 'system') return { role: 'system' };
  return {
    role: typeof m.role === 'string' ? m.role : 'invalid',
    preview: preview(m.content),
    toolCalls: Array.isArray(m.toolCalls) ? m.toolCalls.length : 0,
    toolCallId: typeof m.toolCallId === 'string' ? m.toolCallId : null,
    name: typeof m.name === 'string' ? m.name : null,
  };
}

function preview(content: unknown): string | null {
  if (typeof content === 'string') return truncate(content);
  if (Array.isArray(content)) return `[${content.length} content parts]`;
  return null;
}

/** Cut at a code point, never inside a surrogate pair. */
function truncate(text: string): string {
  if (text.length <= PREVIEW_LENGTH) return text;
  let out = '';
  let taken = 0;
  for (const ch of text) {
    if (taken === PREVIEW_LENGTH) break;
    out += ch;
    taken++;
  }
  return out;
}
