// A span to carry a violation's event when the model request has no span of its own.

import { SpanKind, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  CHECK_SPAN_NAME,
} from './semconv';
import { writtenText } from './written-value';

/** A span made on demand, ended by whoever made it once the event is on it. */
export interface OwnedSpan {
  span: Span;
  end(): void;
}

/** What the check span says about the request it stands in for. */
export interface CheckSpanRequest {
  provider?: string | undefined;
  model?: string | undefined;
  agentName?: string | undefined;
  conversationId?: string | undefined;
}

/**
 * An INTERNAL span named `nous.session.invariant check`, made only when there
 * is a violation to record and no span of the request's own (AI SDK 7 and
 * fetch-level requests have none). It is not a model call: no CLIENT kind and
 * no `gen_ai.operation.name`, so spanmetrics and RED dashboards that count
 * model calls by either do not count it (docs/behaviour.md §6.1).
 */
export function startCheckSpan(tracer: Tracer, request: CheckSpanRequest): OwnedSpan {
  const attributes: Attributes = {};
  // Every value here is the caller's: read safely and bounded (docs/behaviour.md §6.6).
  const values: [string, unknown][] = [
    [ATTR_GEN_AI_PROVIDER_NAME, request.provider],
    [ATTR_GEN_AI_REQUEST_MODEL, request.model],
    [ATTR_GEN_AI_AGENT_NAME, request.agentName],
    [ATTR_GEN_AI_CONVERSATION_ID, request.conversationId],
  ];
  for (const [name, value] of values) {
    const text = writtenText(value);
    if (text !== undefined) attributes[name] = text;
  }
  const span = tracer.startSpan(CHECK_SPAN_NAME, { kind: SpanKind.INTERNAL, attributes });
  return { span, end: () => span.end() };
}
