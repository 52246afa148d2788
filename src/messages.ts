// The canonical message shape: what the fold produces and what the check
// compares a provider request against.

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export const ROLES: readonly Role[] = Object.freeze(['system', 'user', 'assistant', 'tool'] as const);

export interface ToolCall {
  id: string;
  name: string;
  /** A JSON string and the value it parses to compare equal. */
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

/** Any other part is compared structurally. */
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}

export type ContentPart = TextPart | ImagePart | OtherPart;

export type MessageContent = string | ContentPart[] | null;

export interface Message {
  role: Role;
  content: MessageContent;
  /** Absent and `[]` are the same. */
  toolCalls?: ToolCall[];
  /** Absent and `null` are the same. */
  toolCallId?: string | null;
  /** Absent and `null` are the same. */
  name?: string | null;
  /** Never compared. */
  reasoningContent?: string | null;
  /** Never compared. */
  metadata?: Record<string, unknown>;
  /** Never compared. */
  createdAt?: Date;
}

export function isRole(value: unknown): value is Role {
  return value === 'system' || value === 'user' || value === 'assistant' || value === 'tool';
}
