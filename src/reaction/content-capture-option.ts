// The content-capture option under its two names. `captureMessageContent` is
// the name contrib's GenAI instrumentations give the setting that
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT defaults; `captureContent`,
// this package's first name for it, is kept as a deprecated alias. The one
// place that decides which of the two a configuration means, and how the
// variable is read.

import { booleanFromEnv } from '../environment';
import { CAPTURE_CONTENT_ENV_VAR } from '../telemetry/semconv';

/** The content-capture option, as the instrumentation config, `verify` and the AI SDK middleware take it. */
export interface ContentCaptureOption {
  /**
   * Message previews on violation events, warning lines and strict mode's
   * error (docs/behaviour.md §6.3). Default:
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, else off.
   */
  captureMessageContent?: boolean | undefined;
  /** @deprecated The former name of `captureMessageContent`, which wins when both are set. */
  captureContent?: boolean | undefined;
}

/** The option as set, `captureMessageContent` first; undefined when neither name is set, so the next source decides. */
export function contentCaptureOption(options: ContentCaptureOption | undefined): boolean | undefined {
  return options?.captureMessageContent ?? options?.captureContent;
}

/**
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, read as contrib's
 * GenAI instrumentations read it (`booleanFromEnv`): `true` or `false` in
 * any case; anything else is warned about once and means off.
 */
export function captureContentFromEnv(env?: NodeJS.ProcessEnv): boolean {
  return booleanFromEnv(CAPTURE_CONTENT_ENV_VAR, false, 'content capture', env);
}
