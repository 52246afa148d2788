// Recording a violation: a span event on the request's span and +1 on the
// counter, both through @opentelemetry/api (no-ops when no SDK is registered).

import { SpanKind, metrics, trace, type Attributes, type Counter, type Meter, type MeterProvider, type Span, type Tracer } from '@opentelemetry/api';
import type { Mode } from './mode';
import { readEnv } from './mode';
import {
  ATTR_EXTRA_COUNT,
  ATTR_EXTRA_PREVIEWS,
  ATTR_EXTRA_ROLES,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
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
import type { MessageSketch } from './sketch';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version';
import type { ViolationDetails } from './violation';

export interface InvariantInstruments {
  violations: Counter;
  checks: Counter;
  internalErrors: Counter;
}

export function createInstruments(meter: Meter): InvariantInstruments {
  return {
    violations: meter.createCounter(VIOLATION_METRIC, {
      description: 'Model requests that could not be reconstructed from the session log',
      unit: '{violation}',
    }),
    checks: meter.createCounter(CHECKS_METRIC, {
      description: 'Model requests checked against the session log',
      unit: '{check}',
    }),
    internalErrors: meter.createCounter(INTERNAL_ERROR_METRIC, {
      description: 'Failures inside nous-session-invariant itself (caught; the request went ahead)',
      unit: '{error}',
    }),
  };
}

let globalInstruments: { provider: MeterProvider; instruments: InvariantInstruments } | undefined;

/** Instruments on the global meter provider, recreated when a new provider is registered. */
export function instrumentsFromGlobal(): InvariantInstruments {
  const provider = metrics.getMeterProvider();
  if (globalInstruments?.provider !== provider) {
    const meter = provider.getMeter(PACKAGE_NAME, PACKAGE_VERSION);
    globalInstruments = { provider, instruments: createInstruments(meter) };
  }
  return globalInstruments.instruments;
}

export interface RecordContext {
  mode: Mode;
  agentName?: string | undefined;
  provider?: string | undefined;
  /** Message previews on the span event; defaults to OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT. */
  captureContent?: boolean | undefined;
  /** The request's span; defaults to the active span. */
  span?: Span | undefined;
  instruments?: InvariantInstruments | undefined;
}

export function captureContentFromEnv(): boolean {
  return readEnv(CAPTURE_CONTENT_ENV_VAR)?.trim().toLowerCase() === 'true';
}

export function recordViolation(violation: ViolationDetails, context: RecordContext): void {
  const span = context.span ?? trace.getActiveSpan();
  const captureContent = context.captureContent ?? captureContentFromEnv();
  span?.addEvent(VIOLATION_EVENT, violationEventAttributes(violation, context.mode, captureContent));
  const instruments = context.instruments ?? instrumentsFromGlobal();
  instruments.violations.add(1, { [ATTR_KIND]: violation.kind, ...requestAttributes(context) });
}

export function recordCheck(context: RecordContext): void {
  const instruments = context.instruments ?? instrumentsFromGlobal();
  instruments.checks.add(1, requestAttributes(context));
}

/** Attributes shared by both counters: mode, agent and provider, when known. */
function requestAttributes(context: RecordContext): Attributes {
  const attributes: Attributes = { [ATTR_MODE]: context.mode };
  if (context.agentName) attributes[ATTR_GEN_AI_AGENT_NAME] = context.agentName;
  if (context.provider) attributes[ATTR_GEN_AI_PROVIDER_NAME] = context.provider;
  return attributes;
}

function violationEventAttributes(violation: ViolationDetails, mode: Mode, captureContent: boolean): Attributes {
  const attributes: Attributes = { [ATTR_KIND]: violation.kind, [ATTR_MODE]: mode };
  switch (violation.kind) {
    case 'orphaned_tool_result':
      if (violation.toolCallId !== null) attributes[ATTR_TOOL_CALL_ID] = violation.toolCallId;
      break;
    case 'invalid_request':
      attributes[ATTR_REASON] = violation.reason;
      break;
    default:
      attributes[ATTR_INDEX] = violation.index;
      attributes[ATTR_REQUEST_LENGTH] = violation.requestLength;
      attributes[ATTR_LOG_LENGTH] = violation.logLength;
      attributes[ATTR_EXTRA_COUNT] = violation.extra.length;
      attributes[ATTR_EXTRA_ROLES] = violation.extra.map((s) => s.role);
      attributes[ATTR_MISSING_COUNT] = violation.missing.length;
      attributes[ATTR_MISSING_ROLES] = violation.missing.map((s) => s.role);
      if (captureContent) {
        attributes[ATTR_EXTRA_PREVIEWS] = violation.extra.map(previewOf);
        attributes[ATTR_MISSING_PREVIEWS] = violation.missing.map(previewOf);
      }
  }
  return attributes;
}

function previewOf(sketch: MessageSketch): string {
  return 'preview' in sketch && sketch.preview !== null ? sketch.preview : '';
}

/**
 * A client span for a model request that has no span of its own, named and
 * described per the OpenTelemetry GenAI conventions (`chat {model}`), to carry
 * its violation event. Ended by the caller once the event is recorded.
 */
export function startModelRequestSpan(
  tracer: Tracer,
  request: { provider?: string | undefined; model?: string | undefined },
): { span: Span; end(): void } {
  const span = tracer.startSpan(request.model ? `chat ${request.model}` : 'chat', {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      ...(request.provider ? { [ATTR_GEN_AI_PROVIDER_NAME]: request.provider } : {}),
      ...(request.model ? { 'gen_ai.request.model': request.model } : {}),
    },
  });
  return { span, end: () => span.end() };
}
