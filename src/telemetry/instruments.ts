// The package's counters, on a given meter or the global meter provider's.

import { metrics, type Attributes, type Context, type Counter, type Meter, type MeterProvider } from '@opentelemetry/api';
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
    checks: addedAtCollection(
      meter,
      meter.createCounter(CHECKS_METRIC, {
        description: 'Model requests checked against the session log',
        unit: '{check}',
      }),
    ),
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

/**
 * `counter` (a counter every request adds to: the checks), with what it
 * exports unchanged and most of its per-request cost moved to the
 * collection. The one place that decides when a check reaches the SDK's
 * counter. The SDK hashes an add's attributes on every call; here, between
 * two collections, the first add of an attribute set goes to `counter` at
 * once and the later ones of the same set (the same frozen object:
 * `recordCheck` hands out one per mode, log, agent and provider) are
 * counted in a number, added to `counter` in one add per set by a callback
 * the SDK runs at the start of every collection, before it reads any
 * counter. So every collection, `forceFlush` and `shutdown` reads the same
 * instrument (type, temporality, attributes) with the same sums, series in
 * the same order and the same start times as if each check had been added
 * at once. An add with a context, or of an object not frozen, goes to
 * `counter` as it comes. Without a meter that runs callbacks (an API older
 * than 1.3), every add does.
 */
export function addedAtCollection(meter: Meter, counter: Counter): Counter {
  if (typeof meter.createObservableGauge !== 'function' || typeof meter.addBatchObservableCallback !== 'function') return counter;
  // The sets added since the last collection, each with what is not yet added to `counter`.
  const pending = new Map<Attributes, number>();
  const flush = (): void => {
    for (const [attributes, value] of pending) if (value > 0) counter.add(value, attributes);
    pending.clear();
  };
  // Never observed: it only gives the callback a place to run (an instrument with no observation exports nothing).
  const trigger = meter.createObservableGauge(COLLECTION_TRIGGER, {
    description: 'Not exported: runs the collection callback of nous-session-invariant',
  });
  meter.addBatchObservableCallback(flush, [trigger]);
  return {
    add(value: number, attributes?: Attributes, context?: Context): void {
      if (attributes !== undefined && context === undefined && value > 0 && Object.isFrozen(attributes)) {
        const counted = pending.get(attributes);
        if (counted !== undefined) {
          pending.set(attributes, counted + value);
          return;
        }
        // Bounded where no reader collects (a provider without readers) or sets are made per request.
        if (pending.size < MAX_PENDING_SETS) pending.set(attributes, 0);
      }
      counter.add(value, attributes, context);
    },
  };
}

/** The name of the instrument that only carries `addedAtCollection`'s callback. */
const COLLECTION_TRIGGER = 'nous.session.invariant.collection';
/** Attribute sets `addedAtCollection` keeps between two collections at most; others are added as they come. */
const MAX_PENDING_SETS = 512;

let globalInstruments: { provider: MeterProvider; instruments: InvariantInstruments } | undefined;

/** Instruments on the global meter provider, recreated when a new provider is registered. */
export function instrumentsFromGlobal(): InvariantInstruments {
  const provider = metrics.getMeterProvider();
  if (globalInstruments?.provider !== provider) {
    globalInstruments = { provider, instruments: createInstruments(provider.getMeter(PACKAGE_NAME, PACKAGE_VERSION)) };
  }
  return globalInstruments.instruments;
}
