// Names that appear in exported telemetry. Changing one breaks dashboards and alerts.

export const VIOLATION_EVENT = 'nous.session.invariant.violation';
export const VIOLATION_METRIC = 'nous.session.invariant.violation';
export const CHECKS_METRIC = 'nous.session.invariant.checks';
export const INTERNAL_ERROR_METRIC = 'nous.session.invariant.internal_error';

export const ATTR_KIND = 'nous.session.invariant.kind';
export const ATTR_MODE = 'nous.session.invariant.mode';
export const ATTR_INDEX = 'nous.session.invariant.index';
export const ATTR_REQUEST_LENGTH = 'nous.session.invariant.request_length';
export const ATTR_LOG_LENGTH = 'nous.session.invariant.log_length';
export const ATTR_TOOL_CALL_ID = 'nous.session.invariant.tool_call_id';
export const ATTR_REASON = 'nous.session.invariant.reason';
export const ATTR_EXTRA_COUNT = 'nous.session.invariant.extra.count';
export const ATTR_EXTRA_ROLES = 'nous.session.invariant.extra.roles';
export const ATTR_EXTRA_PREVIEWS = 'nous.session.invariant.extra.previews';
export const ATTR_MISSING_COUNT = 'nous.session.invariant.missing.count';
export const ATTR_MISSING_ROLES = 'nous.session.invariant.missing.roles';
export const ATTR_MISSING_PREVIEWS = 'nous.session.invariant.missing.previews';

// OpenTelemetry GenAI semantic conventions.
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';

export const CAPTURE_CONTENT_ENV_VAR = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
