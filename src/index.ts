// nous-session-invariant: the core. Every request handed to a model provider
// must be reconstructable from the session log. This entry holds the log and
// its fold, the pure check, `verify` and its modes, the session binding and
// the errors; it loads no instrumentation machinery. The rules are stated in
// docs/behaviour.md. Other entries: `/instrumentation`, `/adapters`,
// `/ai-sdk`, `/openai-agents`, `/langchain`, `/history`, `/register`.

export { SessionLog, type AppendResult, type IndexedMessage } from './log/session-log';
export { appendMessage } from './log/append-message';
export {
  BOOKKEEPING_EVENT_TYPES,
  EVENT_TYPES,
  SURFACE_EVENT_TYPES,
  type BookkeepingEventType,
  type EventData,
  type EventType,
  type ReplaceRange,
  type SessionEvent,
  type SurfaceEventType,
} from './log/events';
export { InvalidEventError, type InvalidEventCode } from './log/invalid-event';
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
} from './model/messages';
export { messagesMatch } from './invariant/message-equality';
export { check } from './invariant/check';
export type { MessageSketch, NonSystemSketch, SystemSketch } from './invariant/sketch';
export {
  SessionInvariantViolation,
  describeViolation,
  type CheckResult,
  type FingerprintField,
  type InvalidRequestViolation,
  type OrphanedToolResultViolation,
  type ReconstructionKind,
  type ReconstructionViolation,
  type ViolationDetails,
  type ViolationKind,
} from './invariant/violation';
export { MODES, type Mode } from './invariant/mode';
export { resolveMode } from './reaction/resolve-mode';
export { verify, type VerifyOptions } from './reaction/verify';
export { getActiveSession, withSession, type SessionBinding, type WithSessionOptions } from './invariant/session-binding';
export { VIOLATION_EVENT, VIOLATION_METRIC } from './telemetry/semconv';
export { setLogger, type InvariantLogger } from './warnings';
export type { Outcome } from './result';
