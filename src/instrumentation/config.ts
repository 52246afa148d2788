// The options of `new SessionInvariantInstrumentation(config)`: their names,
// types and defaults, each with the environment variable it falls back to.
// The README's options table and docs/register.md list the same, in the same
// order. Content capture keeps contrib's name, `captureMessageContent`
// (content-capture-option.ts holds its deprecated alias).

import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { Mode } from '../invariant/mode';
import type { ContentCaptureOption } from '../reaction/content-capture-option';
import type { ImplicitLogOptions, RedisCallClient, RedisSendCommand, RedisStoreClient } from '../request-path/host';

export type { ImplicitLogOptions, RedisCallClient, RedisSendCommand, RedisStoreClient };

/**
 * The instrumentation's configuration. Each setting is the fallback for
 * requests that do not name their own: a call's option (the AI SDK
 * middleware's) wins, then the session bound with `withSession`, then this
 * config, then the environment.
 */
export interface SessionInvariantInstrumentationConfig extends InstrumentationConfig, ContentCaptureOption {
  /** `off`, `warn` or `strict`; defaults to NOUS_SESSION_INVARIANT, else `warn`. */
  mode?: Mode;
  /**
   * With content capture on, rewrites each preview before it is recorded
   * (span event, warning line, strict mode's error). A throw drops that
   * preview and counts an internal error.
   */
  redact?: (text: string) => string;
  /** With content capture on, characters kept of each preview after `redact` (at most 120, the default). */
  previewLength?: number;
  /** `gen_ai.agent.name` for requests whose session names none. */
  agentName?: string;
  /** The implicit conversation log for requests with no bound session; `false` turns it off. */
  implicit?: ImplicitLogOptions | boolean;
  /**
   * Take what an OpenAI Agents SDK `callModelInputFilter` or handoff input
   * filter hands the model as a view of the log, unchecked (the run's own
   * history is still checked). Default false, else
   * NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS: a filter's output is checked
   * like any request builder's.
   */
  trustInputFilters?: boolean;
}
