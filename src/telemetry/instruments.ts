// The package's counters, on a given meter or the global meter provider's.

import { metrics, type Counter, type Meter, type MeterProvider } from '@opentelemetry/api';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';
import { CHECKS_METRIC, IMPLICIT_EVICTION_METRIC, INTERNAL_ERROR_METRIC, VIOLATION_METRIC } from './semconv';

export interface InvariantInstruments {
  violations: Counter;
  checks: Counter;
  internalErrors: Counter;
  evictions: Counter;
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
      description: 'Failures inside nous-session-invariant itself (caught; the request went ahead unchecked)',
      unit: '{error}',
    }),
    evictions: meter.createCounter(IMPLICIT_EVICTION_METRIC, {
      description: 'Implicit conversations dropped to stay within the configured bounds',
      unit: '{conversation}',
    }),
  };
}

let globalInstruments: { provider: MeterProvider; instruments: InvariantInstruments } | undefined;

/** Instruments on the global meter provider, recreated when a new provider is registered. */
export function instrumentsFromGlobal(): InvariantInstruments {
  const provider = metrics.getMeterProvider();
  if (globalInstruments?.provider !== provider) {
    globalInstruments = { provider, instruments: createInstruments(provider.getMeter(PACKAGE_NAME, PACKAGE_VERSION)) };
  }
  return globalInstruments.instruments;
}
