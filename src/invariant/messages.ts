// The canonical message shape: what the fold produces and what the check
// compares a provider request against.

/** The four roles of the canonical transcript. Providers' `developer` role reads as `system`. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export const ROLES: readonly Role[] = Object.freeze(['system', 'user', 'assistant', 'tool'] as const);

/** A tool call made by an assistant message. */
export interface ToolCall {
  id: string;
  name: string;
  /**
   * The call's arguments. A JSON string and the value it parses to compare
   * equal: OpenAI sends arguments as a string, Anthropic as an object.
   */
  arguments?: unknown;
}

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image';
  /** May be a `data:` URL. */
  url: string;
  mediaType?: string;
}

/** Any other part (audio, files, a provider's own block) is compared structurally, key order ignored. */
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}

export type ContentPart = TextPart | ImagePart | OtherPart;

/**
 * A string, a list of parts, or null. A string equals the one-part list
 * `[{ type: 'text', text }]`, since provider adapters produce both forms.
 */
export type MessageContent = string | ContentPart[] | null;

/**
 * One message of the transcript. The check compares `role`, `content`,
 * `toolCalls`, `toolCallId` and `name` (the fingerprint) and never the rest,
 * which is not part of what the model is sent.
 */
export interface Message {
  role: Role;
  content: MessageContent;
  /** Absent and `[]` are the same. */
  toolCalls?: ToolCall[];
  /** The call a `tool` message answers. Absent and `null` are the same. */
  toolCallId?: string | null;
  /** A participant or tool name. Absent and `null` are the same; not compared on assistant messages. */
  name?: string | null;
  /** Never compared. */
  reasoningContent?: string | null;
  /** Never compared. */
  metadata?: Record<string, unknown>;
  /** Never compared. In the fold: the event's time, a fresh Date on every read. */
  createdAt?: Date;
}

export function isRole(value: unknown): value is Role {
  return value === 'system' || value === 'user' || value === 'assistant' || value === 'tool';
}
