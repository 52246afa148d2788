// The violation as a log-based event, beside the span event: the GenAI
// conventions' `gen_ai.evaluation.result`, emitted through the Logs API in the
// context of the span the span event went on, so backends correlate the two.

import * as otelApi from '@opentelemetry/api';
import { context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { ViolationDetails } from '../invariant/violation';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';
import {
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_PROVIDER_NAME,
  EVALUATION_EVENT,
  EVALUATION_NAME,
} from './semconv';
import { explainViolation } from './violation-line';
import { violationAttributes, type RecordContext } from './violation-event';

/** The part of a Logs API logger the package uses (both `@opentelemetry/api` ≥1.10 and `@opentelemetry/api-logs` loggers fit). */
export interface EventLogger {
  emit(record: { eventName?: string; severityNumber?: number; severityText?: string; attributes?: Attributes; context?: Context }): void;
}

/** `SeverityNumber.WARN` of the Logs API, as a number so the package needs no logs package for it. */
const SEVERITY_WARN = 13;

type LogsApi = { getLogger(name: string, version?: string): EventLogger };

/**
 * The logger of the global logger provider in `@opentelemetry/api` (1.10 and
 * later carry the Logs API; current SDKs, NodeSDK 0.301 included, register
 * there), or undefined with an older API, where the instrumentation's own
 * logger (`@opentelemetry/api-logs`) is used instead.
 */
export function apiEventLogger(): EventLogger | undefined {
  const logs = (otelApi as unknown as { logs?: LogsApi }).logs;
  return logs?.getLogger(PACKAGE_NAME, PACKAGE_VERSION);
}

/**
 * Emits `gen_ai.evaluation.result` for `violation` on `logger`, in the
 * context of `span` (the span the span event went on), with no prompt text:
 * the evaluation name, the kind as the score label, the content-free
 * explanation, and the mode, log, agent, provider and conversation.
 */
export function emitEvaluationEvent(
  logger: EventLogger | undefined,
  violation: ViolationDetails,
  record: RecordContext,
  span: Span | undefined,
): void {
  if (logger === undefined) return;
  const attributes: Attributes = {
    [ATTR_GEN_AI_EVALUATION_NAME]: EVALUATION_NAME,
    [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: violation.kind,
    [ATTR_GEN_AI_EVALUATION_EXPLANATION]: explainViolation(violation, record.log, record.unobservedReplies),
    ...violationAttributes(violation, record),
  };
  if (record.provider) attributes[ATTR_GEN_AI_PROVIDER_NAME] = record.provider;
  logger.emit({
    eventName: EVALUATION_EVENT,
    severityNumber: SEVERITY_WARN,
    severityText: 'WARN',
    attributes,
    context: span === undefined ? context.active() : trace.setSpan(context.active(), span),
  });
}
