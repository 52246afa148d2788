// A span for a model request that has none of its own, to carry its violation event.

import { SpanKind, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_PROVIDER_NAME, ATTR_GEN_AI_REQUEST_MODEL, GEN_AI_OPERATION_CHAT } from './semconv';

/** A span made on demand, ended by whoever made it once the event is on it. */
export interface OwnedSpan {
  span: Span;
  end(): void;
}

/**
 * A client span named and described per the OpenTelemetry GenAI conventions
 * (`chat {model}`), made only when there is a violation to record and no
 * span of the request's own: AI SDK 7 and fetch-level requests have none.
 */
export function startModelRequestSpan(tracer: Tracer, request: { provider?: string | undefined; model?: string | undefined }): OwnedSpan {
  const attributes: Record<string, string> = { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT };
  if (request.provider) attributes[ATTR_GEN_AI_PROVIDER_NAME] = request.provider;
  if (request.model) attributes[ATTR_GEN_AI_REQUEST_MODEL] = request.model;
  const span = tracer.startSpan(request.model ? `${GEN_AI_OPERATION_CHAT} ${request.model}` : GEN_AI_OPERATION_CHAT, {
    kind: SpanKind.CLIENT,
    attributes,
  });
  return { span, end: () => span.end() };
}
