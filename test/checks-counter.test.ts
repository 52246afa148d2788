// The checks counter adds most checks at the collection (instruments.ts
// `addedAtCollection`) instead of on every request. What a reader exports
// must be what a plain counter given every add at once exports: the same
// metrics, points, values, attributes, temporality and times, under every
// temporality a reader may choose, with several readers collecting at
// different moments.

import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InstrumentType,
  MeterProvider,
  MetricReader,
  type AggregationTemporalitySelector,
} from '@opentelemetry/sdk-metrics';
import { createInstruments } from '../src/telemetry/instruments';
import { CHECKS_METRIC } from '../src/telemetry/semconv';

class Reader extends MetricReader {
  constructor(aggregationTemporalitySelector: AggregationTemporalitySelector) {
    super({ aggregationTemporalitySelector });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const TEMPORALITIES: Record<string, AggregationTemporalitySelector> = {
  cumulative: () => AggregationTemporality.CUMULATIVE,
  delta: () => AggregationTemporality.DELTA,
  // The SDK's LOWMEMORY preference: synchronous counters delta, observable ones cumulative.
  lowMemory: (type) =>
    type === InstrumentType.COUNTER || type === InstrumentType.HISTOGRAM ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE,
};

/** Two readers on one provider: the temporality under test, and a cumulative one collecting at other moments. */
function side(temporality: AggregationTemporalitySelector) {
  const readers = [new Reader(temporality), new Reader(TEMPORALITIES.cumulative!)];
  const provider = new MeterProvider({ readers });
  return { readers, meter: provider.getMeter('nous-session-invariant', '1') };
}

const SETS: readonly Attributes[] = [
  Object.freeze({ 'nous.session.invariant.mode': 'warn', 'nous.session.invariant.log': 'implicit', 'gen_ai.provider.name': 'openai' }),
  Object.freeze({ 'nous.session.invariant.mode': 'warn', 'nous.session.invariant.log': 'bound' }),
  Object.freeze({ 'nous.session.invariant.mode': 'strict', 'nous.session.invariant.log': 'implicit', 'gen_ai.agent.name': 'a' }),
];

type Step =
  | { add: number } // one of SETS, the same object each time
  | { fresh: number; frozen: boolean } // a new object with SETS[n]'s attributes
  | { tick: number }
  | { collect: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ add: fc.integer({ min: 0, max: SETS.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ fresh: fc.integer({ min: 0, max: SETS.length - 1 }), frozen: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ tick: fc.integer({ min: 1, max: 5_000 }) }) },
  { weight: 2, arbitrary: fc.record({ collect: fc.integer({ min: 0, max: 1 }) }) },
);

afterEach(() => {
  vi.useRealTimers();
});

describe('the checks counter, added at the collection', () => {
  it.each(Object.keys(TEMPORALITIES))('exports what a counter given every add at once exports (%s)', async (name) => {
    const temporality = TEMPORALITIES[name]!;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
        const plain = side(temporality);
        const batched = side(temporality);
        const counter = plain.meter.createCounter(CHECKS_METRIC, {
          description: 'Model requests checked against the session log',
          unit: '{check}',
        });
        const checks = createInstruments(batched.meter).checks;
        const collect = async (reader: number) => {
          const [a, b] = await Promise.all([plain.readers[reader]!.collect(), batched.readers[reader]!.collect()]);
          expect(b.errors).toEqual([]);
          expect(b.resourceMetrics.scopeMetrics).toEqual(a.resourceMetrics.scopeMetrics);
        };
        for (const s of [...steps, { collect: 0 }, { collect: 1 }] as Step[]) {
          if ('add' in s) {
            counter.add(1, SETS[s.add]);
            checks.add(1, SETS[s.add]);
          } else if ('fresh' in s) {
            const attributes = s.frozen ? Object.freeze({ ...SETS[s.fresh] }) : { ...SETS[s.fresh] };
            counter.add(1, attributes);
            checks.add(1, attributes);
          } else if ('tick' in s) vi.advanceTimersByTime(s.tick);
          else await collect(s.collect);
        }
        vi.useRealTimers();
      }),
      { numRuns: 40 },
    );
  });

  it('adds a set seen before only at the collection, and its first add at once (each series starts at its first check)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
    const { readers, meter } = side(TEMPORALITIES.cumulative!);
    const checks = createInstruments(meter).checks;
    checks.add(1, SETS[0]);
    vi.advanceTimersByTime(1_000);
    checks.add(1, SETS[0]);
    checks.add(1, SETS[0]);
    vi.advanceTimersByTime(1_000);
    const { resourceMetrics } = await readers[0]!.collect();
    const metrics = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    expect(metrics.map((metric) => metric.descriptor.name)).toEqual([CHECKS_METRIC]);
    const [point] = metrics[0]!.dataPoints;
    expect(point).toMatchObject({ value: 3, attributes: SETS[0], startTime: [1_700_000_000, 0], endTime: [1_700_000_002, 0] });
  });
});
