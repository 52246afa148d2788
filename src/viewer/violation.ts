// Violations as the viewer shows them, taken from the two places the package
// records one: the `nous.session.invariant.violation` span event and the
// `gen_ai.evaluation.result` log record. Anything else is ignored.

import type { OtlpAttributes, OtlpLogRecord, OtlpSpan, OtlpValue } from './otlp-model';

// Names as in src/telemetry/semconv.ts; repeated here, since these are what the
// viewer reads off the wire, whatever version of the package sent them.
export const VIOLATION_EVENT = 'nous.session.invariant.violation';
const EVALUATION_EVENT = 'gen_ai.evaluation.result';
const EVALUATION_NAME = 'nous.session.invariant';
const NOUS_PREFIX = 'nous.session.invariant.';

/** One violation, with what is known of the request it was found on. */
export interface ViewerViolation {
  timeMs: number;
  traceId: string;
  spanId: string;
  service: string | undefined;
  spanName: string | undefined;
  kind: string;
  mode: string | undefined;
  log: string | undefined;
  agent: string | undefined;
  conversation: string | undefined;
  provider: string | undefined;
  model: string | undefined;
  explanation: string | undefined;
  /** The `nous.session.invariant.*` attributes, as sent. */
  attributes: OtlpAttributes;
}

/** The violations recorded as span events on these spans. */
export function violationsFromSpans(spans: readonly OtlpSpan[]): ViewerViolation[] {
  const out: ViewerViolation[] = [];
  for (const span of spans) {
    for (const event of span.events) {
      if (event.name !== VIOLATION_EVENT) continue;
      const a = event.attributes;
      const kind = str(a[`${NOUS_PREFIX}kind`]);
      if (kind === undefined) continue;
      out.push({
        timeMs: event.timeMs,
        traceId: span.traceId,
        spanId: span.spanId,
        service: span.service,
        spanName: span.name || undefined,
        kind,
        mode: str(a[`${NOUS_PREFIX}mode`]),
        log: str(a[`${NOUS_PREFIX}log`]),
        agent: str(a['gen_ai.agent.name']) ?? str(span.attributes['gen_ai.agent.name']),
        conversation: str(a['gen_ai.conversation.id']) ?? str(span.attributes['gen_ai.conversation.id']),
        provider: providerOf(a) ?? providerOf(span.attributes),
        model: str(span.attributes['gen_ai.request.model']) ?? str(span.attributes['gen_ai.response.model']),
        explanation: undefined,
        attributes: nousAttributes(a),
      });
    }
  }
  return out;
}

/** The violations recorded as evaluation log records. */
export function violationsFromLogs(records: readonly OtlpLogRecord[]): ViewerViolation[] {
  const out: ViewerViolation[] = [];
  for (const r of records) {
    const a = r.attributes;
    const eventName = r.eventName ?? str(a['event.name']);
    if (eventName !== EVALUATION_EVENT || str(a['gen_ai.evaluation.name']) !== EVALUATION_NAME) continue;
    const kind = str(a[`${NOUS_PREFIX}kind`]) ?? str(a['gen_ai.evaluation.score.label']);
    if (kind === undefined) continue;
    out.push({
      timeMs: r.timeMs,
      traceId: r.traceId,
      spanId: r.spanId,
      service: r.service,
      spanName: undefined,
      kind,
      mode: str(a[`${NOUS_PREFIX}mode`]),
      log: str(a[`${NOUS_PREFIX}log`]),
      agent: str(a['gen_ai.agent.name']),
      conversation: str(a['gen_ai.conversation.id']),
      provider: providerOf(a),
      model: str(a['gen_ai.request.model']),
      explanation: str(a['gen_ai.evaluation.explanation']) ?? str(r.body),
      attributes: nousAttributes(a),
    });
  }
  return out;
}

/**
 * What identifies one violation across its span event and its log record, so
 * the two merge into one entry: the request's span, the kind, the log and
 * where the difference is.
 */
export function violationKey(v: ViewerViolation): string {
  const a = v.attributes;
  return [v.traceId, v.spanId, v.kind, v.log, a[`${NOUS_PREFIX}index`], a[`${NOUS_PREFIX}request_length`], a[`${NOUS_PREFIX}log_length`]]
    .map((part) => JSON.stringify(part ?? null))
    .join('|');
}

/** Fills what `into` lacks from `from` (the other record of the same violation). */
export function mergeViolation(into: ViewerViolation, from: ViewerViolation): void {
  for (const key of ['service', 'spanName', 'mode', 'agent', 'conversation', 'provider', 'model', 'explanation'] as const) {
    if (into[key] === undefined && from[key] !== undefined) into[key] = from[key];
  }
  for (const [key, value] of Object.entries(from.attributes)) if (!(key in into.attributes)) into.attributes[key] = value;
}

function str(value: OtlpValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function providerOf(a: OtlpAttributes): string | undefined {
  return str(a['gen_ai.provider.name']) ?? str(a['gen_ai.system']);
}

function nousAttributes(a: OtlpAttributes): OtlpAttributes {
  return Object.fromEntries(Object.entries(a).filter(([key]) => key.startsWith(NOUS_PREFIX)));
}
