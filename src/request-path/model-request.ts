// What a seam hands the request path: one model request, in canonical form.

import type { Span } from '@opentelemetry/api';
import type { Message } from '../model/messages';
import type { Mode } from '../invariant/mode';
import type { SessionLog } from '../log/session-log';
import type { ContentCaptureOption } from '../reaction/content-capture-option';

/**
 * One model request as a seam hands it to the request path: its provider, model
 * and messages in canonical form, and what the seam knows about it (stateful,
 * referring to stored items, its span, how to read its reply).
 */
export interface ModelRequest {
  /** `gen_ai.provider.name`: `openai`, `anthropic`, ... */
  provider: string | undefined;
  /** `gen_ai.request.model`: the model the body names, if any. */
  model: string | undefined;
  /** Canonical messages; whatever a seam could not read as a list is passed on as it is, for the check to report. */
  messages: readonly Message[] | unknown;
  /**
   * Set when the provider keeps the conversation itself (a Responses
   * `previous_response_id` or `conversation`, an Anthropic `thread`): the
   * request carries only what is new, so there is nothing to reconstruct.
   */
  stateful?: string | undefined;
  /**
   * On a stateful request, the id of the reply the provider holds that it
   * continues from (a Responses `previous_response_id`, a thread's
   * `previous_message_id`); `messages` are then what it adds. The implicit
   * log follows such a chain when it saw the reply that id names.
   */
  continues?: string | undefined;
  /**
   * Ids of items the request refers to instead of carrying them (Responses
   * `item_reference`, which the AI SDK sends for stored replies). A bound
   * log cannot reconstruct them, so such a request is not checked against
   * one; the implicit log resolves them to the replies it observed.
   */
  references?: readonly string[] | undefined;
  /** The request's own span, when the seam knows it; else the active span. */
  span?: Span | undefined;
  /** The wire format of the HTTP response, when the seam can read the model's reply from it. */
  replyFormat?: ReplyFormat | undefined;
  /**
   * The body as it is sent, when the seam has it serialised: the SDK client
   * hook at its byte seams, the fetch seam. The implicit log reads a
   * conversation's bytes from it; `messages` stay what the rules read.
   */
  body?: SerialisedBody | undefined;
}

/**
 * A model request as a seam has it before reading its messages: who it is
 * for, whether it is stateful, and its serialised body. The implicit log may
 * decide it from the bytes alone (never a stateful one: the request path's
 * guards come first); otherwise the seam reads it whole.
 */
export interface SerialisedHead {
  provider: string;
  model: string | undefined;
  /** As `ModelRequest.stateful`, read from the request without reading its messages. */
  stateful?: string | undefined;
  body: SerialisedBody;
}

/** A request body as the string that goes over the wire, and its wire format. */
export interface SerialisedBody {
  readonly text: string;
  readonly format: ReplyFormat;
  /**
   * Reads some elements of the body's conversation array (messages or
   * input items), parsed, as canonical messages: how the implicit log reads
   * only a request's new elements. Absent where the seam has no reader.
   */
  readonly readElements?: ((entries: readonly unknown[]) => readonly Message[]) | undefined;
}

/**
 * The model APIs whose responses (JSON or server-sent events) the package
 * reads replies from: the three the SDK client hook shares, or the `name` of
 * a wire format in the provider registry (`src/integrations/providers.ts`),
 * `{provider}.{api}` such as `gemini.generateContent`.
 */
export type ReplyFormat = 'openai.chat' | 'openai.responses' | 'anthropic.messages' | `${string}.${string}`;

/** Settings given with one call (the AI SDK middleware's options): they win over everything else. */
export interface CallOptions extends ContentCaptureOption {
  log?: SessionLog | undefined;
  mode?: Mode | undefined;
  agentName?: string | undefined;
  /**
   * What `log` stands for in the report (`nous.session.invariant.log`), when
   * it is not a bound log: a seam that checks a request against the implicit
   * conversation as a log of its own says `implicit`.
   */
  logKind?: 'bound' | 'implicit' | undefined;
}

/** Where a request was seen. */
export interface Seam {
  /** Names the seam in internal-error reports. */
  name: string;
  /** False where a throw cannot reach the caller (a diagnostics-channel subscriber): strict is recorded as warn. */
  mayThrow: boolean;
}
