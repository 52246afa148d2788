// The package's counters, on a given meter or the global meter provider's.

import { metrics, type Counter, type Meter, type MeterProvider } from '@opentelemetry/api';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';
import {
  CHECKS_METRIC,
  IMPLICIT_EVICTION_METRIC,
  INTERNAL_ERROR_METRIC,
  STORE_ERROR_METRIC,
  STORE_DEGRADED_METRIC,
  VIOLATION_METRIC,
} from './semconv';

/**
 * The package's counters (docs/behaviour.md §6.2), made on one meter. They
 * are passed along rather than looked up, so an instrumentation given its own
 * meter provider counts on that provider.
 */
export interface InvariantInstruments {
  /** `nous.session.invariant.violation`: +1 per violation. */
  violations: Counter;
  /** `nous.session.invariant.checks`: +1 per checked request, passes included. */
  checks: Counter;
  /** `nous.session.invariant.internal_error`: +1 per failure caught inside the package. */
  internalErrors: Counter;
  /** `nous.session.invariant.implicit.evictions`: +1 per implicit conversation dropped. */
  evictions: Counter;
  /** `nous.session.invariant.store.errors`: +1 per failed round trip to the shared conversation store. */
  storeErrors: Counter;
  /** `nous.session.invariant.store.degraded`: +1 per check or write a store fault cost (docs/shared-store.md). */
  storeDegraded: Counter;
}

/**
 * Creates the counters on `meter`, with the names of semconv.ts and the
 * units and descriptions of docs/behaviour.md §6.2. The instrumentation calls
 * it each time its meter changes.
 */
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
      description: "Failures inside nous-session-invariant itself (caught; the caller's call went on)",
      unit: '{error}',
    }),
    evictions: meter.createCounter(IMPLICIT_EVICTION_METRIC, {
      description: 'Implicit conversations dropped to stay within the configured bounds',
      unit: '{conversation}',
    }),
    storeErrors: meter.createCounter(STORE_ERROR_METRIC, {
      description: 'Failed round trips to the shared conversation store (the check used the process memory instead)',
      unit: '{error}',
    }),
    storeDegraded: meter.createCounter(STORE_DEGRADED_METRIC, {
      description: 'Checks left unreported, or writes given up, because of a fault of the shared conversation store',
      unit: '{event}',
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
