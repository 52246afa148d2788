// Whether the active context suppresses tracing (`suppressTracing` of
// @opentelemetry/core, which exporters and other telemetry code run under).
// Read through the API's context key, which is the same symbol in every copy
// of the API, so the package needs no @opentelemetry/core of its own.

import { context, createContextKey } from '@opentelemetry/api';

const SUPPRESS_TRACING_KEY = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** True inside `suppressTracing(context.active())`: contrib's instrumentations record nothing there, and neither does this package. */
export function tracingSuppressed(): boolean {
  return context.active().getValue(SUPPRESS_TRACING_KEY) === true;
}
