// nous-session-invariant/history: what the log as source of truth is for.
// The request view (fold plus overlay), non-destructive compaction, fork,
// rewind and replay, and the recovery of an interrupted turn.

export { SessionView, applyOverlay } from './history/view';
export {
  balanceToolCallBoundary,
  compact,
  pruneToolResults,
  replaceRange,
  type CompactOptions,
  type CompactResult,
  type ReplaceResult,
} from './history/compaction';
export { Session, fork, rewind, type ForkResult, type SessionParent } from './history/fork';
export { openTurns, plan, recover, type PlannedEvent, type ToolRunRisk } from './history/recovery';
export { SessionError, type Result, type SessionErrorCode } from './history/errors';
