// Added latency of an instrumented chat completions call over the bare call,
// against the same loopback server, for a 100-message request; one run,
// interleaved rounds so that drift hits both sides alike.
// Three sides: bare, a bound session, and no session (the implicit
// conversation log, which sees the same request re-sent: a new branch each
// time, its costliest passing path). Target: ratio <= 1.02 for both.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { SessionInvariantInstrumentation } from '../src/instrumentation';
import { check, withSession } from '../src/index';
import { fromOpenAIChat, toOpenAIChat } from '../src/adapters';
import { agentLog, fmt, timePerCall } from './support';

const MESSAGES = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const CALLS_PER_ROUND = 40;

async function main(): Promise<void> {
  const answer = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }],
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
        exportIntervalMillis: 3_600_000,
      }),
    ],
  });
  // withSession binds through the OpenTelemetry context: without a context
  // manager (register() or NodeSDK installs one) nothing is bound, and the
  // 'bound' side would take the implicit log's path instead.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  const { OpenAI } = createRequire(__filename)('openai') as typeof import('openai');
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });

  const log = agentLog(MESSAGES);
  const messages = toOpenAIChat(log.deriveMessages());
  if (!check(log, fromOpenAIChat(messages)).ok) throw new Error('the benchmark request must pass the check');
  const call = () => client.chat.completions.create({ model: 'bench', messages });

  type Side = 'bare' | 'bound' | 'implicit';
  async function timeCalls(side: Side): Promise<number> {
    if (side === 'bare') instrumentation.disable();
    else instrumentation.enable();
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS_PER_ROUND; i++) {
      if (side === 'bound') await withSession(log, call);
      else await call(); // bare, or no session bound: the implicit conversation log checks it
    }
    return Number(process.hrtime.bigint() - start) / CALLS_PER_ROUND;
  }

  const sides: Side[] = ['bare', 'bound', 'implicit'];
  for (let i = 0; i < 3; i++) for (const side of sides) await timeCalls(side); // warm-up
  const times: Record<Side, number[]> = { bare: [], bound: [], implicit: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which side goes first, so drift within a round hits each alike.
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(round + k) % sides.length]!;
      times[side].push(await timeCalls(side));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  // Each round's sides ran back to back: the median of their ratios cancels drift between rounds.
  const ratioOf = (side: Side) => median(times[side].map((t, i) => t / times.bare[i]!));
  // The hook's own work on this request, timed alone (no HTTP noise): read the body, check it, count it.
  const hookWork = timePerCall(() => withSession(log, () => check(log, fromOpenAIChat(messages))));
  console.table([
    { mode: 'bare call', 'median per call': fmt(median(times.bare)) },
    { mode: 'instrumented (session bound, check passes)', 'median per call': fmt(median(times.bound)), ratio: ratioOf('bound').toFixed(4) },
    {
      mode: 'instrumented (no session: implicit log)',
      'median per call': fmt(median(times.implicit)),
      ratio: ratioOf('implicit').toFixed(4),
    },
    { mode: "the hook's work alone (adapter + check)", 'median per call': fmt(hookWork) },
  ]);
  console.log(`${MESSAGES}-message request, ${ROUNDS} rounds x ${CALLS_PER_ROUND} calls each side`);
  for (const side of ['bound', 'implicit'] as const) {
    const ratio = ratioOf(side);
    console.log(`overhead ratio, ${side} log: ${ratio.toFixed(4)} (target <= 1.02: ${ratio <= 1.02 ? 'met' : 'NOT met'})`);
  }
  console.log(`hook work alone ${((hookWork / median(times.bare)) * 100).toFixed(2)}% of a bare call`);
  instrumentation.disable();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  server.close();
}

void main();
