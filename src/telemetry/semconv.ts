// Names that appear in exported telemetry. Changing one breaks dashboards and alerts.

/** The span event recorded on the model request's span for each violation. */
export const VIOLATION_EVENT = 'nous.session.invariant.violation';
/** Counter, +1 per violation (`nous_session_invariant_violation_total` in Prometheus). */
export const VIOLATION_METRIC = 'nous.session.invariant.violation';
/** Counter, +1 per checked model request: the denominator of violation ratios. */
export const CHECKS_METRIC = 'nous.session.invariant.checks';
/** Counter, +1 per failure inside this package (caught; the caller's call went on; the warning line says what the failure cost). */
export const INTERNAL_ERROR_METRIC = 'nous.session.invariant.internal_error';
/** Counter, +1 per implicit conversation dropped to stay within the configured bounds. */
export const IMPLICIT_EVICTION_METRIC = 'nous.session.invariant.implicit.evictions';
/** Counter, +1 per failed round trip to the shared conversation store (the check fell back to the process's memory). */
export const STORE_ERROR_METRIC = 'nous.session.invariant.store.errors';
/**
 * Counter, +1 per loss of coverage a store fault cost: a check left
 * unreported (`unseen_reply`) or a deferred write given up (`write_dropped`),
 * by `nous.session.invariant.store.reason`.
 */
export const STORE_DEGRADED_METRIC = 'nous.session.invariant.store.degraded';

/**
 * The violation kind (`extra_message`, `missing_message`, `order`,
 * `orphaned_tool_result`, `invalid_request`). On the span event and the
 * violation counter; not on the checks counter, since a passing check has no
 * kind. See docs/behaviour.md §6.1 and §6.2.
 */
export const ATTR_KIND = 'nous.session.invariant.kind';
/**
 * The mode the check ran in, as recorded: `warn` or `strict`. Strict that
 * cannot throw here (outside a test environment, or at a seam that cannot throw
 * into the caller) is recorded as `warn`, since that is how it acted. On the
 * span event and on both the violation and the checks counters. See
 * docs/behaviour.md §5.3, §6.1 and §6.2.
 */
export const ATTR_MODE = 'nous.session.invariant.mode';
/**
 * `bound` (a log bound with `withSession`, a call option or `verify`) or
 * `implicit` (the conversation the package keeps itself). On the span event
 * and on both the violation and the checks counters, so dashboards and alerts
 * can tell the two apart (docs/behaviour.md §6.2).
 */
export const ATTR_LOG = 'nous.session.invariant.log';
/**
 * Reconstruction kinds only, on the span event: the first position where the
 * request and the fold differ. Counted after the overlay slot, so it lines up
 * with both lists (docs/behaviour.md §3.3).
 */
export const ATTR_INDEX = 'nous.session.invariant.index';
/**
 * Reconstruction kinds only, on the span event: how many messages the request
 * has, counted after the overlay slot (docs/behaviour.md §3.3).
 */
export const ATTR_REQUEST_LENGTH = 'nous.session.invariant.request_length';
/**
 * Reconstruction kinds only, on the span event: how many messages the fold has
 * (for the implicit log, the conversation it was compared with), counted like
 * `.request_length` (docs/behaviour.md §3.3).
 */
export const ATTR_LOG_LENGTH = 'nous.session.invariant.log_length';
/**
 * `orphaned_tool_result` only, on the span event: the `toolCallId` of the
 * result no preceding call asked for. Left off when that id is `null`, since an
 * attribute cannot hold `null` (docs/behaviour.md §6.1).
 */
export const ATTR_TOOL_CALL_ID = 'nous.session.invariant.tool_call_id';
/**
 * `invalid_request` only, on the span event: why the request could not be read
 * as a list of messages (not an array, too many messages, an entry that throws
 * when read). See docs/behaviour.md §3 and §6.1.
 */
export const ATTR_REASON = 'nous.session.invariant.reason';
/**
 * Reconstruction kinds only, on the span event, and only when exactly one
 * request message stands where exactly one fold message was: the fingerprint
 * fields in which the two differ. `['name']` alone means the same message under
 * another name (docs/behaviour.md §3.3).
 */
export const ATTR_DIFFERS = 'nous.session.invariant.differs';
/**
 * Reconstruction kinds only, on the span event: how many request messages are
 * in surplus. This is the true count; `.extra.roles` and `.extra.previews`
 * describe at most the first five, so a violation stays bounded
 * (docs/behaviour.md §3.4, §6.1).
 */
export const ATTR_EXTRA_COUNT = 'nous.session.invariant.extra.count';
/**
 * Reconstruction kinds only, on the span event: the roles of the sketched
 * surplus request messages (at most five). Roles carry no prompt text, so they
 * are always exported (docs/behaviour.md §3.4, §6.1).
 */
export const ATTR_EXTRA_ROLES = 'nous.session.invariant.extra.roles';
/**
 * Reconstruction kinds only, on the span event, and only with content capture
 * on: the previews of the sketched surplus request messages (`''` for one with
 * no preview). Off by default because prompt text is not exported unless
 * someone asks for it (docs/behaviour.md §6.3).
 */
export const ATTR_EXTRA_PREVIEWS = 'nous.session.invariant.extra.previews';
/**
 * Reconstruction kinds only, on the span event: how many fold messages the
 * request left out. The true count; `.missing.roles` and `.missing.previews`
 * describe at most the first five (docs/behaviour.md §3.4, §6.1).
 */
export const ATTR_MISSING_COUNT = 'nous.session.invariant.missing.count';
/**
 * Reconstruction kinds only, on the span event: the roles of the sketched fold
 * messages the request left out (at most five). No prompt text, so always
 * exported (docs/behaviour.md §3.4, §6.1).
 */
export const ATTR_MISSING_ROLES = 'nous.session.invariant.missing.roles';
/**
 * Reconstruction kinds only, on the span event, and only with content capture
 * on: the previews of the sketched fold messages the request left out (`''` for
 * one with no preview). Opt-in, like every preview (docs/behaviour.md §6.3).
 */
export const ATTR_MISSING_PREVIEWS = 'nous.session.invariant.missing.previews';
/**
 * Reconstruction kinds only, on the span event, when a sketched surplus
 * request message is a tool result: the call id each answers, aligned with
 * `.extra.roles` (`''` for a message that is no tool result). Identifiers, not
 * prompt text: the explanation names them too (docs/behaviour.md §6.1).
 */
export const ATTR_EXTRA_TOOL_CALL_IDS = 'nous.session.invariant.extra.tool_call_ids';
/** As `.extra.tool_call_ids`, the tool's name of each tool result (`''` for other messages). */
export const ATTR_EXTRA_TOOL_NAMES = 'nous.session.invariant.extra.tool_names';
/** As `.extra.tool_call_ids`, for the sketched fold messages the request left out, aligned with `.missing.roles`. */
export const ATTR_MISSING_TOOL_CALL_IDS = 'nous.session.invariant.missing.tool_call_ids';
/** As `.extra.tool_names`, for the sketched fold messages the request left out. */
export const ATTR_MISSING_TOOL_NAMES = 'nous.session.invariant.missing.tool_names';
/**
 * Reconstruction kinds only, on the span event: the roles of the (at most two)
 * messages just before `.index`, which match on both sides. With the two
 * below, what a picture of the difference draws beside it: roles only, never
 * prompt text (docs/behaviour.md §6.1).
 */
export const ATTR_MATCHING_BEFORE_ROLES = 'nous.session.invariant.matching.before_roles';
/** The roles of the request's (at most three) messages past its surplus: from `.index + .extra.count` on. */
export const ATTR_MATCHING_REQUEST_AFTER_ROLES = 'nous.session.invariant.matching.request_after_roles';
/** The roles of the log's (at most three) messages past its surplus: from `.index + .missing.count` on. */
export const ATTR_MATCHING_LOG_AFTER_ROLES = 'nous.session.invariant.matching.log_after_roles';
/** On the internal-error counter: where the failure was caught. */
export const ATTR_WHERE = 'nous.session.invariant.where';
/** On the eviction counter: `idle` (unused past the idle timeout) or `capacity` (the cap was reached). */
export const ATTR_EVICTION_REASON = 'nous.session.invariant.eviction.reason';
/** On the store error counter: `connection`, `timeout`, `auth`, `script`, `decode`, `conflict` or `client` (docs/shared-store.md). */
export const ATTR_STORE_REASON = 'nous.session.invariant.store.reason';

// OpenTelemetry GenAI semantic conventions.
/**
 * GenAI convention: the agent's name, from the call option, the bound session
 * or the config (docs/behaviour.md §5.5). When known, on the violation and
 * checks counters, the span event, the log event and the package's own span.
 */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/**
 * GenAI convention: the provider (`openai`, `anthropic`, ...). On the violation
 * and checks counters when known, and on the `nous.session.invariant check`
 * span the package starts when a violation has no span to go on
 * (docs/behaviour.md §6.1, §6.2).
 */
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/**
 * GenAI convention: the requested model, on the `nous.session.invariant check`
 * span the package starts for a violation with no span of its own.
 */
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';

/**
 * GenAI convention: the conversation a request belongs to. On the span event,
 * the evaluation log event and the package's own span, never on a counter (one
 * series per conversation would be unbounded): the bound session's id (the
 * `conversationId` given to `withSession`, else a random id per log), or for the
 * implicit log a random id given when the conversation was first seen
 * (docs/behaviour.md §6.1).
 */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

/** GenAI convention: the evaluation event, emitted through the Logs API beside each violation's span event. */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result';
/** GenAI convention: which evaluation produced the result; always `nous.session.invariant`. */
export const ATTR_GEN_AI_EVALUATION_NAME = 'gen_ai.evaluation.name';
/** GenAI convention: the result as a label; here the violation kind. */
export const ATTR_GEN_AI_EVALUATION_SCORE_LABEL = 'gen_ai.evaluation.score.label';
/** GenAI convention: why; here the content-free description of the violation. */
export const ATTR_GEN_AI_EVALUATION_EXPLANATION = 'gen_ai.evaluation.explanation';
/** The value of `gen_ai.evaluation.name` on the package's evaluation events. */
export const EVALUATION_NAME = 'nous.session.invariant';

/**
 * The name of the INTERNAL span the package starts when a violation has no
 * span to go on. Not `chat {model}` and not CLIENT: it is no model call, and
 * spanmetrics/RED dashboards must not count it as one (docs/behaviour.md §6.1).
 */
export const CHECK_SPAN_NAME = 'nous.session.invariant check';

/** The GenAI conventions' switch for content capture: message previews only when it is `true`. */
export const CAPTURE_CONTENT_ENV_VAR = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
