// The canonical message shape: what the fold produces and what the check
// compares a provider request against.

/** The four roles of the canonical transcript. Providers' `developer` role reads as `system`. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/**
 * The four roles, frozen, in the order `system`, `user`, `assistant`, `tool`:
 * for enumerating or validating roles at run time (docs/behaviour.md §1.1).
 */
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

/**
 * A text content part. A list holding only this part, with no other defined
 * field, equals its text as a plain string, because adapters and SDKs write the
 * same text both ways (docs/behaviour.md §1.4).
 */
export interface TextPart {
  type: 'text';
  text: string;
}

/**
 * An image content part. Images are compared by URL: the adapters read
 * Anthropic base64 sources, Chat `image_url`, Responses `input_image` and AI
 * SDK image files into this one shape, so the same image matches however an API
 * wrote it (docs/behaviour.md §4.3).
 */
export interface ImagePart {
  type: 'image';
  /** May be a `data:` URL. */
  url: string;
  /** The image's media type, when known. Compared like any other field when present. */
  mediaType?: string;
}

/** Any other part (audio, files, a provider's own block) is compared structurally, key order ignored. */
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}

/**
 * One part of a message's content. Parts are compared structurally with key
 * order ignored, leaving out only the prompt-cache marker `cache_control`,
 * which Anthropic's prompt caching moves to the newest message every turn
 * (docs/behaviour.md §1.4, §4.1).
 */
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

/** Whether `value` is one of the four canonical roles. */
export function isRole(value: unknown): value is Role {
  return value === 'system' || value === 'user' || value === 'assistant' || value === 'tool';
}

/**
 * The longest request `check` reads. Provider APIs accept far fewer
 * messages; a longer array (a sparse `length = 2**32 - 1`, say) is reported
 * as `invalid_request` instead of being walked.
 */
export const MAX_REQUEST_MESSAGES = 1_000_000;
