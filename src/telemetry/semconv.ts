// Names that appear in exported telemetry. Changing one breaks dashboards and alerts.

/** The span event recorded on the model request's span for each violation. */
export const VIOLATION_EVENT = 'nous.session.invariant.violation';
/** Counter, +1 per violation (`nous_session_invariant_violation_total` in Prometheus). */
export const VIOLATION_METRIC = 'nous.session.invariant.violation';
/** Counter, +1 per checked model request: the denominator of violation ratios. */
export const CHECKS_METRIC = 'nous.session.invariant.checks';
/** Counter, +1 per failure inside this package (caught; the request went ahead unchecked). */
export const INTERNAL_ERROR_METRIC = 'nous.session.invariant.internal_error';
/** Counter, +1 per implicit conversation dropped to stay within the configured bounds. */
export const IMPLICIT_EVICTION_METRIC = 'nous.session.invariant.implicit.evictions';

export const ATTR_KIND = 'nous.session.invariant.kind';
export const ATTR_MODE = 'nous.session.invariant.mode';
/** `bound` (a log bound with `withSession`) or `implicit` (the conversation the package keeps itself). */
export const ATTR_LOG = 'nous.session.invariant.log';
export const ATTR_INDEX = 'nous.session.invariant.index';
export const ATTR_REQUEST_LENGTH = 'nous.session.invariant.request_length';
export const ATTR_LOG_LENGTH = 'nous.session.invariant.log_length';
export const ATTR_TOOL_CALL_ID = 'nous.session.invariant.tool_call_id';
export const ATTR_REASON = 'nous.session.invariant.reason';
export const ATTR_DIFFERS = 'nous.session.invariant.differs';
export const ATTR_EXTRA_COUNT = 'nous.session.invariant.extra.count';
export const ATTR_EXTRA_ROLES = 'nous.session.invariant.extra.roles';
export const ATTR_EXTRA_PREVIEWS = 'nous.session.invariant.extra.previews';
export const ATTR_MISSING_COUNT = 'nous.session.invariant.missing.count';
export const ATTR_MISSING_ROLES = 'nous.session.invariant.missing.roles';
export const ATTR_MISSING_PREVIEWS = 'nous.session.invariant.missing.previews';
/** On the internal-error counter: where the failure was caught. */
export const ATTR_WHERE = 'nous.session.invariant.where';
/** On the eviction counter: `idle` (unused past the idle timeout) or `capacity` (the cap was reached). */
export const ATTR_EVICTION_REASON = 'nous.session.invariant.eviction.reason';

// OpenTelemetry GenAI semantic conventions.
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_OPERATION_CHAT = 'chat';

/** The GenAI conventions' switch for content capture: message previews only when it is `true`. */
export const CAPTURE_CONTENT_ENV_VAR = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
