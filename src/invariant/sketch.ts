// Bounded, content-light summaries of messages for violation details: a
// violation must never dump a (multimodal) transcript into a log line.

/** Characters of string content a sketch previews. */
export const PREVIEW_LENGTH = 120;
/** Sketches per list (`extra`, `missing`) at most. */
export const MAX_SKETCHES = 5;

/**
 * A bounded, content-light stand-in for a message in a violation's `extra` and
 * `missing` lists, so a violation can never dump a (multimodal) transcript into
 * a log line (docs/behaviour.md §3.4).
 */
export type MessageSketch = SystemSketch | NonSystemSketch;

/** System content is never compared, so a system sketch says nothing more. */
export interface SystemSketch {
  role: 'system';
}

/**
 * The sketch of a non-system message: its role, a preview, its tool-call count
 * and its tool identifiers. In the implicit log's conversations `preview` is
 * `null` unless content capture is on, so no prompt text outlives the request
 * that carried it (docs/behaviour.md §8.6).
 */
export interface NonSystemSketch {
  /** The role as sent; a malformed request entry may carry one outside `Role` (`invalid` when it has none). */
  role: string;
  /** The first 120 characters of string content, `"[N content parts]"` for a part list, `null` otherwise. */
  preview: string | null;
  /** How many tool calls the message carries. */
  toolCalls: number;
  /** The call a `tool` message answers, else `null`. */
  toolCallId: string | null;
  /** The participant or tool name, else `null`. `describeViolation` shows a tool result's name but never a participant name. */
  name: string | null;
}

/** The sketch of any request entry or fold message; never throws for a plain value. */
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

/** The sketch with no preview: role and tool identifiers only. */
export function withoutPreview(s: MessageSketch): MessageSketch {
  return 'preview' in s && s.preview !== null ? { ...s, preview: null } : s;
}

function preview(content: unknown): string | null {
  if (typeof content === 'string') return firstCharacters(content, PREVIEW_LENGTH);
  if (Array.isArray(content)) return `[${content.length} content parts]`;
  return null;
}

/** The first `count` characters (code points: a surrogate pair is never cut), as a string of their own. */
function firstCharacters(text: string, count: number): string {
  let end = text.length;
  if (end > count) {
    end = 0;
    for (let taken = 0; taken < count && end < text.length; taken++) {
      const code = text.charCodeAt(end);
      end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
    }
  }
  return ownCopy(text.slice(0, end));
}

/**
 * A copy of `text` that shares no storage with the string it was cut from.
 * V8 keeps a slice as a pointer into its parent, so a kept 120-character
 * preview would keep the whole (maybe megabyte) message alive; `concat`, a
 * template or `repeat(1)` do not copy either. The JSON text of a string is a
 * new string (it has quotes the message has not), and parsing it builds
 * another from that text alone. Runs only on a violation or with content
 * capture on, on at most 120 characters.
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
