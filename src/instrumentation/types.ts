import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { Mode } from '../mode';

export interface SessionInvariantInstrumentationConfig extends InstrumentationConfig {
  /** `off`, `warn` (default) or `strict`; defaults to NOUS_SESSION_INVARIANT. */
  mode?: Mode;
  /** Message previews on violation events; defaults to OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT. */
  captureContent?: boolean;
  /** `gen_ai.agent.name` for sessions bound without one. */
  agentName?: string;
}
