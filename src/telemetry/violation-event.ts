// Recording a check: +1 on the checks counter, and for a violation a span
// event on the request's span and +1 on the violation counter. Everything
// goes through @opentelemetry/api, so with no SDK registered it is a no-op.

import { trace, type Attributes, type Span } from '@opentelemetry/api';
import type { Mode } from '../invariant/mode';
import type { MessageSketch } from '../invariant/sketch';
import type { ViolationDetails } from '../invariant/violation';
import { instrumentsFromGlobal, type InvariantInstruments } from './instruments';
import {
  ATTR_DIFFERS,
  ATTR_EXTRA_COUNT,
  ATTR_EXTRA_PREVIEWS,
  ATTR_EXTRA_ROLES,
  ATTR_EXTRA_TOOL_CALL_IDS,
  ATTR_EXTRA_TOOL_NAMES,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_INDEX,
  ATTR_KIND,
  ATTR_LOG,
  ATTR_LOG_LENGTH,
  ATTR_MISSING_COUNT,
  ATTR_MISSING_PREVIEWS,
  ATTR_MISSING_ROLES,
  ATTR_MISSING_TOOL_CALL_IDS,
  ATTR_MISSING_TOOL_NAMES,
  ATTR_MATCHING_BEFORE_ROLES,
  ATTR_MATCHING_LOG_AFTER_ROLES,
  ATTR_MATCHING_REQUEST_AFTER_ROLES,
  ATTR_MODE,
  ATTR_REASON,
  ATTR_REQUEST_LENGTH,
  ATTR_TOOL_CALL_ID,
  VIOLATION_EVENT,
} from './semconv';
import { bounded, writtenText } from './written-value';

/** Which log a request was checked against: one bound with `withSession`, or the implicit conversation. */
export type LogKind = 'bound' | 'implicit';

/** What is known about a checked request, for the span event and the counters. */
export interface RecordContext {
  mode: Mode;
  log: LogKind;
  agentName?: string | undefined;
  provider?: string | undefined;
  /** `gen_ai.conversation.id`: on the span event and the log event, never on a counter (cardinality). */
  conversationId?: string | undefined;
  /** Message previews on the span event. Off unless switched on: prompts are not exported by default. */
  captureContent: boolean;
  /** The request's span; defaults to the active span. */
  span?: Span | undefined;
  instruments?: InvariantInstruments | undefined;
  /** The implicit log's surplus is assistant replies this process never saw a model send (the explanation says so). */
  unobservedReplies?: boolean | undefined;
}

/**
 * +1 on the checks counter for a checked request, passes included, with the
 * mode, the log kind and, when known, the agent and the provider. It is the
 * denominator of violation ratios (docs/behaviour.md §6.2).
 */
export function recordCheck(context: RecordContext): void {
  (context.instruments ?? instrumentsFromGlobal()).checks.add(1, checkAttributes(context));
}

/**
 * Records one violation: the `nous.session.invariant.violation` span event on
 * `context.span`, else on the active span (with neither, no event), and +1 on
 * the violation counter with the kind. Previews go on the event only with
 * `context.captureContent` on. See docs/behaviour.md §6.1 to §6.3.
 */
export function recordViolation(violation: ViolationDetails, context: RecordContext): void {
  recordedViolations++;
  const span = context.span ?? trace.getActiveSpan();
  span?.addEvent(VIOLATION_EVENT, violationAttributes(violation, context));
  (context.instruments ?? instrumentsFromGlobal()).violations.add(1, { [ATTR_KIND]: violation.kind, ...requestAttributes(context) });
}

let recordedViolations = 0;

/** Violations recorded in this process so far; `register` compares it at exit with what a flush covered. */
export function violationsRecorded(): number {
  return recordedViolations;
}

/** Attributes shared by both counters: mode, log kind, agent and provider, when known; never the conversation. */
function requestAttributes(context: RecordContext): Attributes {
  const attributes: Attributes = { [ATTR_MODE]: context.mode, [ATTR_LOG]: context.log };
  const agent = writtenText(context.agentName);
  if (agent !== undefined) attributes[ATTR_GEN_AI_AGENT_NAME] = countedAgentName(agent);
  if (context.provider) attributes[ATTR_GEN_AI_PROVIDER_NAME] = context.provider;
  return attributes;
}

/** Distinct agent names a counter carries at most; later ones are counted under `OTHER_AGENTS`. */
export const MAX_COUNTED_AGENT_NAMES = 100;
/** The counters' `gen_ai.agent.name` for agents past the first `MAX_COUNTED_AGENT_NAMES`. */
export const OTHER_AGENTS = '[other agents]';
const countedAgentNames = new Set<string>();

/**
 * The one place that keeps the counters' cardinality bounded: the first
 * `MAX_COUNTED_AGENT_NAMES` distinct agent names of the process go on the
 * counters as they are, any later one as `[other agents]` (a counter series
 * per name would grow without end if names came from user input). Span and
 * log events keep the name itself, bounded in length.
 */
function countedAgentName(agent: string): string {
  if (countedAgentNames.has(agent)) return agent;
  if (countedAgentNames.size >= MAX_COUNTED_AGENT_NAMES) return OTHER_AGENTS;
  countedAgentNames.add(agent);
  return agent;
}

/**
 * The checks counter's attributes, made once per mode, log kind, agent and
 * provider and handed out again (frozen): every request of an app records
 * one of a handful of sets. Agent names are the app's: past
 * `MAX_ATTRIBUTE_SETS` sets, new ones are made per request, uncached.
 */
const attributeSets = new Map<string, Map<string, Map<string, Map<string, Attributes>>>>();
let attributeSetCount = 0;
const MAX_ATTRIBUTE_SETS = 256;

function checkAttributes(context: RecordContext): Attributes {
  const agent = typeof context.agentName === 'string' ? context.agentName : '';
  const provider = context.provider || '';
  const byLog = attributeSets.get(context.mode);
  const byAgent = byLog?.get(context.log);
  const byProvider = byAgent?.get(agent);
  const known = byProvider?.get(provider);
  if (known !== undefined) return known;
  const attributes = Object.freeze(requestAttributes(context));
  if (attributeSetCount >= MAX_ATTRIBUTE_SETS || typeof context.mode !== 'string' || typeof context.log !== 'string') return attributes;
  const logs = byLog ?? attributeSets.set(context.mode, new Map()).get(context.mode)!;
  const agents = byAgent ?? logs.set(context.log, new Map()).get(context.log)!;
  const providers = byProvider ?? agents.set(agent, new Map()).get(agent)!;
  providers.set(provider, attributes);
  attributeSetCount++;
  return attributes;
}

/**
 * The violation's own attributes, shared by the span event and the log event
 * (so either alone describes it, and the two match): kind, mode, log, agent,
 * conversation, where the difference is, and previews only with capture on.
 */
export function violationAttributes(violation: ViolationDetails, context: RecordContext): Attributes {
  const attributes: Attributes = { [ATTR_KIND]: violation.kind, [ATTR_MODE]: context.mode, [ATTR_LOG]: context.log };
  // Per event, so event rows group by agent and conversation; the conversation stays off the counters.
  const agent = writtenText(context.agentName);
  if (agent !== undefined) attributes[ATTR_GEN_AI_AGENT_NAME] = agent;
  const conversation = writtenText(context.conversationId);
  if (conversation !== undefined) attributes[ATTR_GEN_AI_CONVERSATION_ID] = conversation;
  switch (violation.kind) {
    case 'orphaned_tool_result':
      if (violation.toolCallId !== null) attributes[ATTR_TOOL_CALL_ID] = writtenText(violation.toolCallId) ?? '';
      break;
    case 'invalid_request':
      attributes[ATTR_REASON] = bounded(violation.reason);
      break;
    default:
      attributes[ATTR_INDEX] = violation.index;
      attributes[ATTR_REQUEST_LENGTH] = violation.requestLength;
      attributes[ATTR_LOG_LENGTH] = violation.logLength;
      attributes[ATTR_EXTRA_COUNT] = violation.extraCount;
      attributes[ATTR_EXTRA_ROLES] = violation.extra.map(roleOf);
      attributes[ATTR_MISSING_COUNT] = violation.missingCount;
      attributes[ATTR_MISSING_ROLES] = violation.missing.map(roleOf);
      addToolIdentifiers(attributes, violation.extra, ATTR_EXTRA_TOOL_CALL_IDS, ATTR_EXTRA_TOOL_NAMES);
      addToolIdentifiers(attributes, violation.missing, ATTR_MISSING_TOOL_CALL_IDS, ATTR_MISSING_TOOL_NAMES);
      if (violation.differs) attributes[ATTR_DIFFERS] = violation.differs;
      if (violation.matchingRoles) {
        attributes[ATTR_MATCHING_BEFORE_ROLES] = violation.matchingRoles.before.map(writtenRole);
        attributes[ATTR_MATCHING_REQUEST_AFTER_ROLES] = violation.matchingRoles.requestAfter.map(writtenRole);
        attributes[ATTR_MATCHING_LOG_AFTER_ROLES] = violation.matchingRoles.logAfter.map(writtenRole);
      }
      if (context.captureContent) {
        attributes[ATTR_EXTRA_PREVIEWS] = violation.extra.map(previewOf);
        attributes[ATTR_MISSING_PREVIEWS] = violation.missing.map(previewOf);
      }
  }
  return attributes;
}

/** The call ids and tool names of the sketched tool results, aligned with their roles; nothing when none is one. */
function addToolIdentifiers(attributes: Attributes, sketches: readonly MessageSketch[], ids: string, names: string): void {
  const results = sketches.map((s) => (s.role === 'tool' && 'toolCallId' in s ? s : undefined));
  if (!results.some((s) => s !== undefined && (s.toolCallId !== null || s.name !== null))) return;
  attributes[ids] = results.map((s) => writtenText(s?.toolCallId ?? undefined) ?? '');
  attributes[names] = results.map((s) => writtenText(s?.name ?? undefined) ?? '');
}

/** The role as sent, bounded: a malformed entry's role is whatever the caller put there. */
function roleOf(sketch: MessageSketch): string {
  return writtenRole(sketch.role);
}

function writtenRole(role: string): string {
  return writtenText(role) ?? 'invalid';
}

function previewOf(sketch: MessageSketch): string {
  return 'preview' in sketch && sketch.preview !== null ? sketch.preview : '';
}
