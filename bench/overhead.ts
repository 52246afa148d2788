// Added latency of an instrumented chat completions call over the bare call,
// against the same loopback server, for a 100-message request; one run,
// interleaved rounds so that drift hits every side alike.
// Three instrumented sides: a bound session; no session (the implicit
// conversation log) seeing the same request re-sent (a new branch each
// time, its costliest passing path); and no session in an agent loop (each
// request the previous one plus the model's reply and a new question, 100
// messages on average: the path a correct app takes). Target (issue 22):
// ratio <= 1.05 for the bound and the implicit sides.
// A fourth side, the bare call again, is compared with the bare call: a
// no-op, which the estimator must read as 1.00 (see `pairedRatio`).
//
// Each instrumented side is compared with a bare call made the same way, so
// that the ratio is the package's cost and nothing else:
// - The bound side runs inside `withSession`, i.e. with an active
//   OpenTelemetry context (an AsyncLocalStorage store). Any active context
//   makes every promise and async resource of the call carry it (undici's
//   fetch makes many), which cost a bare call 2-4% (10-20 µs) on the 2-core
//   machine this was written on; an app with an active span (an HTTP server span) pays that
//   whether or not this package is there. So its baseline is the bare call
//   run under an active context of the same kind (`bare, active context`).
// - The implicit sides run with no context, against the bare call with none
//   (the agent loop against the bare agent loop, which sends the same requests).
// - The bare client is a copy of `openai` loaded before the instrumentation
//   (its module dropped from the require cache afterwards, so the
//   instrumented client is a second copy, the one the instrumentation
//   patches), given the global fetch as it was before the fetch seam wrapped
//   it. The instrumentation is enabled once, as in an app: toggling it per
//   side (as this bench did) re-wrapped the SDK's methods with new closures
//   every round, which cost the instrumented side what no app pays.
//   BENCH_TOGGLE=1 measures the old way.
// Nothing of the package's own work is left out: the instrumented sides run
// every seam as an app's calls do (client hook, fetch seam, reply reading).

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { context, createContextKey, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { SessionInvariantInstrumentation } from '../dist/instrumentation';
import { check, withSession } from '../dist/index';
import { fromOpenAIChat, toOpenAIChat } from '../dist/adapters';
import { agentLog, fmt, median, pairedRatio, timePerCall } from './support';

const MESSAGES = 100;
// Many short rounds: one round's ratio varies by +-25% on a shared 2-core
// machine, so a few long rounds gave a run-to-run spread (1.03 to 1.37 for
// the same code) wider than the target's margin.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const CALLS_PER_ROUND = 20;

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
  const unwrappedFetch = globalThis.fetch; // before enable() wraps it: the bare client's
  const toggle = process.env.BENCH_TOGGLE === '1';
  const load = createRequire(__filename);
  const BareOpenAI = (load('openai') as typeof import('openai')).OpenAI;
  if (!toggle) for (const key of Object.keys(load.cache)) if (key.includes('/node_modules/openai/')) delete load.cache[key];
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  const { OpenAI } = load('openai') as typeof import('openai');
  if (!toggle && OpenAI === BareOpenAI) throw new Error('the bare client must be a copy of openai the instrumentation does not patch');
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
  const bareClient = new BareOpenAI({ apiKey: 'bench', baseURL, maxRetries: 0, fetch: unwrappedFetch });

  const log = agentLog(MESSAGES);
  const messages = toOpenAIChat(log.deriveMessages());
  if (!check(log, fromOpenAIChat(messages)).ok) throw new Error('the benchmark request must pass the check');
  type Messages = typeof messages;
  const call = (history: Messages = messages) => client.chat.completions.create({ model: 'bench', messages: history });
  const bareCall = (history: Messages = messages) => bareClient.chat.completions.create({ model: 'bench', messages: history });
  // The agent loop: a conversation of its own per round (its first question says which), a history array the
  // app keeps, grown by the model's reply and a new question after each call: from LOOP_START messages to
  // LOOP_START + 2 x CALLS_PER_ROUND, MESSAGES on average.
  const LOOP_START = MESSAGES - CALLS_PER_ROUND;
  const loopTemplate = toOpenAIChat(agentLog(LOOP_START).deriveMessages());
  const firstQuestion = loopTemplate.findIndex((m) => m.role === 'user');
  const loopStarts = new Map<number, Messages>();
  const loopStart = (round: number): Messages => {
    let start = loopStarts.get(round);
    if (start === undefined) {
      start = loopTemplate.slice();
      start[firstQuestion] = { role: 'user', content: `Conversation ${round}. ${String(loopTemplate[firstQuestion]!.content)}` };
      loopStarts.set(round, start);
    }
    return start;
  };
  async function agentLoop(send: (history: Messages) => Promise<unknown>, round: number): Promise<void> {
    const history = loopStart(round).slice();
    for (let i = 0; i < CALLS_PER_ROUND; i++) {
      await send(history);
      history.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `And after that, step ${i}?` });
    }
  }
  // An active context like withSession's (a context with one value set), without a session in it.
  const OTHER_KEY = createContextKey('bench.other');
  const inActiveContext = <T>(fn: () => T): T => context.with(context.active().setValue(OTHER_KEY, true), fn);

  type Side = 'bare' | 'noop' | 'bareInContext' | 'bound' | 'implicit' | 'bareLoop' | 'implicitLoop';
  async function timeCalls(side: Side, round: number): Promise<number> {
    const bare = side === 'bare' || side === 'noop' || side === 'bareInContext' || side === 'bareLoop';
    if (toggle && bare) instrumentation.disable();
    else if (toggle) instrumentation.enable();
    const start = process.hrtime.bigint();
    if (side === 'bareLoop') await agentLoop(bareCall, round);
    else if (side === 'implicitLoop') await agentLoop(call, round);
    else {
      for (let i = 0; i < CALLS_PER_ROUND; i++) {
        if (side === 'bare' || side === 'noop') await bareCall();
        else if (side === 'bareInContext') await inActiveContext(() => bareCall());
        else if (side === 'bound') await withSession(log, () => call());
        else await call(); // no session bound: the implicit conversation log checks it
      }
    }
    return Number(process.hrtime.bigint() - start) / CALLS_PER_ROUND;
  }

  const sides: Side[] = ['bare', 'noop', 'bareInContext', 'bound', 'implicit', 'bareLoop', 'implicitLoop'];
  type Compared = 'noop' | 'bound' | 'implicit' | 'implicitLoop';
  /** The bare side each instrumented side is compared with (see the header). */
  const baseline = { noop: 'bare', bound: 'bareInContext', implicit: 'bare', implicitLoop: 'bareLoop' } as const;
  for (let i = 0; i < 3; i++) for (const side of sides) await timeCalls(side, -1 - i); // warm-up
  const times: Record<Side, number[]> = { bare: [], noop: [], bareInContext: [], bound: [], implicit: [], bareLoop: [], implicitLoop: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which side goes first, so drift within a round hits each alike.
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(round + k) % sides.length]!;
      times[side].push(await timeCalls(side, round));
    }
  }
  // Each round's sides ran back to back: their ratio cancels drift between rounds. Reported as the geometric mean
  // of the rounds' ratios with its 95% confidence interval (support.ts, `pairedRatio`).
  const ratioOf = (side: Compared) => pairedRatio(times[side], times[baseline[side]]);
  // The estimator used before, kept for the no-op's line only: it reads high (see `pairedRatio`).
  const trimmedMeanOf = (side: Compared) => {
    const ratios = times[side].map((t, i) => t / times[baseline[side]][i]!).sort((a, b) => a - b);
    const kept = ratios.slice(Math.floor(ratios.length * 0.1), Math.ceil(ratios.length * 0.9));
    return kept.reduce((a, b) => a + b, 0) / kept.length;
  };
  // The hook's own work on this request, timed alone (no HTTP noise): read the body, check it, count it.
  const hookWork = timePerCall(() => withSession(log, () => check(log, fromOpenAIChat(messages))));
  console.table([
    { mode: 'bare call', 'median per call': fmt(median(times.bare)) },
    { mode: 'no-op: the bare call again / bare', 'median per call': fmt(median(times.noop)), ratio: ratioOf('noop').text },
    { mode: 'bare call, active context', 'median per call': fmt(median(times.bareInContext)) },
    {
      mode: 'instrumented (session bound, check passes) / bare, active context',
      'median per call': fmt(median(times.bound)),
      ratio: ratioOf('bound').text,
    },
    {
      mode: 'instrumented (no session: implicit log, same request re-sent) / bare',
      'median per call': fmt(median(times.implicit)),
      ratio: ratioOf('implicit').text,
    },
    { mode: 'bare agent loop', 'median per call': fmt(median(times.bareLoop)) },
    {
      mode: 'instrumented agent loop (no session: implicit log) / bare agent loop',
      'median per call': fmt(median(times.implicitLoop)),
      ratio: ratioOf('implicitLoop').text,
    },
    { mode: "the hook's work alone (adapter + check)", 'median per call': fmt(hookWork) },
  ]);
  console.log(
    `${MESSAGES}-message request, ${ROUNDS} rounds x ${CALLS_PER_ROUND} calls each side; ratio: geometric mean of per-round ratios (95% CI)`,
  );
  const noop = ratioOf('noop');
  console.log(
    `no-op (bare / bare): ${noop.text}, ratio of medians ${noop.ofMedians.toFixed(3)}; the trimmed mean of ratios used before reads ${trimmedMeanOf('noop').toFixed(3)}`,
  );
  const labels: Record<Exclude<Compared, 'noop'>, string> = {
    bound: 'bound log',
    implicit: 'implicit log, same request re-sent',
    implicitLoop: 'implicit log, agent loop',
  };
  for (const side of ['bound', 'implicit', 'implicitLoop'] as const) {
    const ratio = ratioOf(side);
    const added = median(times[side].map((t, i) => t - times[baseline[side]][i]!));
    // Met only when the whole interval is within the target; not met when all of it is above.
    const verdict = ratio.high <= 1.05 ? 'met' : ratio.low > 1.05 ? 'NOT met' : 'not decided at this precision';
    console.log(
      `overhead ratio, ${labels[side]}: ${ratio.text}, ratio of medians ${ratio.ofMedians.toFixed(3)}, ${fmt(added)} added per call (target <= 1.05: ${verdict})`,
    );
  }
  console.log(`hook work alone ${((hookWork / median(times.bare)) * 100).toFixed(2)}% of a bare call`);
  instrumentation.disable();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  server.close();
}

void main();
