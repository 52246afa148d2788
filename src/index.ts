// The package root: exactly the public API of behaviour.md section 6, plus
// the supporting types and helpers named alongside it.

export { SessionLog, type AppendResult, type IndexedMessage } from './session-log';
export { appendMessage } from './append-message';
export {
  BOOKKEEPING_EVENT_TYPES,
  EVENT_TYPES,
  InvalidEventError,
  SURFACE_EVENT_TYPES,
  type BookkeepingEventType,
  type EventData,
  type EventType,
  type InvalidEventCode,
  type ReplaceRange,
  type SessionEvent,
  type SurfaceEventType,
} from './events';
export {
  ROLES,
  type ContentPart,
  type ImagePart,
  type Message,
  type MessageContent,
  type OtherPart,
  type Role,
  type TextPart,
  type ToolCall,
} from './messages';
export { messagesMatch } from './message-equality';
export { MAX_SKETCHES, PREVIEW_LENGTH, sketch, type MessageSketch, type NonSystemSketch, type SystemSketch } from './sketch';
export { check } from './check';
export {
  SessionInvariantViolation,
  describeViolation,
  type CheckResult,
  type InvalidRequestViolation,
  type OrphanedToolResultViolation,
  type ReconstructionKind,
  type ReconstructionViolation,
  type ViolationDetails,
  type ViolationKind,
} from './violation';
export { DEFAULT_MODE, MODES, MODE_ENV_VAR, isTestEnvironment, resolveMode, type Mode } from './mode';
export { verify, type VerifyOptions } from './verify';
export { setLogger, type InvariantLogger } from './logger';
export {
  ATTR_EXTRA_COUNT,
  ATTR_EXTRA_PREVIEWS,
  ATTR_EXTRA_ROLES,
  ATTR_INDEX,
  ATTR_KIND,
  ATTR_LOG_LENGTH,
  ATTR_MISSING_COUNT,
  ATTR_MISSING_PREVIEWS,
  ATTR_MISSING_ROLES,
  ATTR_MODE,
  ATTR_REASON,
  ATTR_REQUEST_LENGTH,
  ATTR_TOOL_CALL_ID,
  CAPTURE_CONTENT_ENV_VAR,
  CHECKS_METRIC,
  INTERNAL_ERROR_METRIC,
  VIOLATION_EVENT,
  VIOLATION_METRIC,
} from './semconv';
export { withSession, getActiveSession, type SessionBinding, type WithSessionOptions } from './session-context';
export { SessionInvariantInstrumentation } from './instrumentation/instrumentation';
export type { SessionInvariantInstrumentationConfig } from './instrumentation/types';
export { HOOKED_MODULES, SUPPORTED_VERSIONS } from './instrumentation/supported';
export * from './adapters/index';
export { SessionView, applyOverlay } from './session/view';
export {
  PRUNE_HEAD_CHARS,
  PRUNE_TAIL_CHARS,
  SUMMARY_PREFIX,
  balanceToolCallBoundary,
  compact,
  pruneToolResults,
  replaceRange,
  type CompactOptions,
  type CompactResult,
  type ReplaceResult,
} from './session/compaction';
export { Session, fork, newSessionId, rewind, type ForkResult, type SessionParent } from './session/session';
export { openTurns, plan, recover, type PlannedEvent, type ToolRunRisk } from './session/recovery';
export { SessionError, type SessionErrorCode } from './session/errors';
export { sessionInvariantMiddleware, type SessionInvariantMiddleware, type SessionInvariantMiddlewareOptions } from './ai-sdk/middleware';
export { recordAiSdkSteps } from './ai-sdk/record';
export { AI_SDK_TELEMETRY_CHANNEL, subscribeAiSdkTelemetry } from './ai-sdk/channel';
export { SessionLogSession } from './openai-agents/session';
