// Added latency of an instrumented chat completions call over the bare call,
// against the same loopback server, for a 100-message request; one run,
// interleaved rounds so that drift hits both sides alike.
// Target (issue 3): ratio <= 1.02.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { metrics, trace } from '@opentelemetry/api';
import { InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { SessionInvariantInstrumentation } from '../src/instrumentation';
import { check, withSession } from '../src/index';
import { fromOpenAIChat, toOpenAIChat } from '../src/adapters';
import { agentLog, fmt, timePerCall } from './support';

const MESSAGES = 100;
const ROUNDS = 60;
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
    readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  const { OpenAI } = createRequire(__filename)('openai') as typeof import('openai');
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });

  const log = agentLog(MESSAGES);
  const messages = toOpenAIChat(log.deriveMessages());
  if (!check(log, fromOpenAIChat(messages)).ok) throw new Error('the benchmark request must pass the check');
  const call = () => client.chat.completions.create({ model: 'bench', messages });

  async function timeCalls(instrumented: boolean): Promise<number> {
    if (instrumented) instrumentation.enable();
    else instrumentation.disable();
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS_PER_ROUND; i++) {
      if (instrumented) await withSession(log, call);
      else await call();
    }
    return Number(process.hrtime.bigint() - start) / CALLS_PER_ROUND;
  }

  for (let i = 0; i < 3; i++) {
    await timeCalls(false); // warm-up, both sides
    await timeCalls(true);
  }
  const bare: number[] = [];
  const instrumented: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which side goes first.
    if (round % 2 === 0) {
      bare.push(await timeCalls(false));
      instrumented.push(await timeCalls(true));
    } else {
      instrumented.push(await timeCalls(true));
      bare.push(await timeCalls(false));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  // Each round's two sides ran back to back: the median of their ratios cancels drift between rounds.
  const ratio = median(instrumented.map((t, i) => t / bare[i]!));
  // The hook's own work on this request, timed alone (no HTTP noise): read the body, check it, count it.
  const hookWork = timePerCall(() => withSession(log, () => check(log, fromOpenAIChat(messages))));
  console.table([
    { mode: 'bare call', 'median per call': fmt(median(bare)) },
    { mode: 'instrumented (session bound, check passes)', 'median per call': fmt(median(instrumented)) },
    { mode: "the hook's work alone (adapter + check)", 'median per call': fmt(hookWork) },
  ]);
  console.log(`${MESSAGES}-message request, ${ROUNDS} rounds x ${CALLS_PER_ROUND} calls each side`);
  console.log(`overhead ratio ${ratio.toFixed(4)} (target <= 1.02: ${ratio <= 1.02 ? 'met' : 'NOT met'}); hook work alone ${(hookWork / median(bare) * 100).toFixed(2)}% of a bare call`);
  instrumentation.disable();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  server.close();
}

void main();
