// The two sides the SDK-call benches compare (bench/sdk-calls.ts,
// bench/violation-path.ts), set up once for both: a bare copy of `openai` and
// `@anthropic-ai/sdk`, loaded before the instrumentation is enabled and given
// the global fetch as it was, and an instrumented copy loaded after; both
// talk to a loopback server in a child process, so that its CPU is not
// counted. The violations recorded are read from an in-memory metric reader.
// Options: `openai` loaded from a fixture project instead of this package
// (bench/per-call.ts takes openai 6 from test/versions/openai-6.0), and a
// third copy of `openai`, loaded before the instrumentation like the bare one,
// for the bench to patch with another instrumentation (a "rival").

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { SessionInvariantInstrumentation } from '../dist/instrumentation';
import { setLogger } from '../dist/warnings';
import { median } from './support';

export type Shape = 'chat' | 'anthropic' | 'responses';
export type Send = (shape: Shape, body: Record<string, unknown>) => Promise<unknown>;

/** The text of every reply the server gives. */
export const REPLY = 'It looks dry; no umbrella needed.';

// One canned reply per API; Responses get an id of their own each time.
const SERVER = `
const http = require('node:http');
const reply = {
  '/v1/chat/completions': { id: 'chatcmpl-1', object: 'chat.completion', created: 1700000000, model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: ${JSON.stringify(REPLY)} }, finish_reason: 'stop', logprobs: null }] },
  '/v1/messages': { id: 'msg_1', type: 'message', role: 'assistant', model: 'bench', stop_reason: 'end_turn', stop_sequence: null,
    content: [{ type: 'text', text: ${JSON.stringify(REPLY)} }], usage: { input_tokens: 1, output_tokens: 1 } },
};
let n = 0;
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    let body = reply[req.url];
    if (req.url === '/v1/responses') {
      n++;
      body = { id: 'resp_' + n, object: 'response', created_at: 1700000000, status: 'completed', model: 'bench',
        output: [{ type: 'message', id: 'msg_' + n, role: 'assistant', status: 'completed',
          content: [{ type: 'output_text', text: ${JSON.stringify(REPLY)}, annotations: [] }] }] };
    }
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? {}));
  });
});
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
// Gone with the bench: its IPC channel closes when it exits, even on a crash.
process.on('disconnect', () => process.exit());
`;

export type OpenAIModule = typeof import('openai');

export interface SdkSidesOptions {
  /** A folder with its own node_modules/openai (a fixture project) to load `openai` from on every side; this package's own by default. */
  openaiFrom?: string;
  /**
   * Given a third copy of `openai`, loaded before the instrumentation is
   * enabled and after the other two: patches it with another instrumentation
   * (called once the package's instrumentation is enabled, so that the rival's
   * own require hook, if it has one, sees no copy load after it).
   */
  rival?: (openai: OpenAIModule) => void;
}

export interface SdkSides {
  bare: Send;
  instrumented: Send;
  /** The third copy's client (Chat and Responses only), given the global fetch as it was: only the rival sees its calls. */
  rival?: Send;
  /** The instrumented side's violation counter so far. */
  violationsRecorded(): Promise<number>;
  /** The instrumented side's checks counter so far. */
  checksRecorded(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the server and both sides (warn mode, warnings silenced); `close` undoes all of it. */
export async function startSdkSides(options: SdkSidesOptions = {}): Promise<SdkSides> {
  setLogger({ warn: () => {} });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const baseURL = `http://127.0.0.1:${port}`;

  const load = createRequire(__filename);
  const loadOpenAI = (): OpenAIModule =>
    (options.openaiFrom ? createRequire(resolve(options.openaiFrom, 'package.json')) : load)('openai') as OpenAIModule;
  const forget = () => {
    for (const key of Object.keys(load.cache)) if (/\/node_modules\/(openai|@anthropic-ai\/sdk)\//.test(key)) delete load.cache[key];
  };
  const unwrappedFetch = globalThis.fetch;
  const BareOpenAI = loadOpenAI().OpenAI;
  const BareAnthropic = (load('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk')).Anthropic;
  forget();
  const rivalCopy = options.rival ? loadOpenAI() : undefined;
  forget();
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  const { OpenAI } = loadOpenAI();
  const { Anthropic } = load('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk');
  if (OpenAI === BareOpenAI || Anthropic === BareAnthropic || OpenAI === rivalCopy?.OpenAI)
    throw new Error('the bare clients must be copies the instrumentation does not patch');
  if (rivalCopy) options.rival!(rivalCopy);

  /** The sum of the counter `name` over its points, as recorded so far. */
  const counted = async (name: string): Promise<number> => {
    let total = 0;
    for (const scope of (await reader.collect()).resourceMetrics.scopeMetrics)
      for (const metric of scope.metrics)
        if (metric.descriptor.name === name) for (const p of metric.dataPoints) total += p.value as number;
    return total;
  };
  const clientOptions = { apiKey: 'bench', maxRetries: 0 };
  const sender =
    (openai: InstanceType<typeof OpenAI>, anthropic: InstanceType<typeof Anthropic> | undefined): Send =>
    (shape, body) => {
      if (shape === 'chat') return openai.chat.completions.create(body as never);
      if (shape === 'responses') return openai.responses.create(body as never);
      if (!anthropic) throw new Error('the rival side has no Anthropic client');
      return anthropic.messages.create(body as never);
    };
  return {
    instrumented: sender(new OpenAI({ ...clientOptions, baseURL: `${baseURL}/v1` }), new Anthropic({ ...clientOptions, baseURL })),
    bare: sender(
      new BareOpenAI({ ...clientOptions, baseURL: `${baseURL}/v1`, fetch: unwrappedFetch }),
      new BareAnthropic({ ...clientOptions, baseURL, fetch: unwrappedFetch }),
    ),
    rival: rivalCopy && sender(new rivalCopy.OpenAI({ ...clientOptions, baseURL: `${baseURL}/v1`, fetch: unwrappedFetch }), undefined),
    violationsRecorded: () => counted('nous.session.invariant.violation'),
    checksRecorded: () => counted('nous.session.invariant.checks'),
    async close() {
      instrumentation.disable();
      child.kill();
      await meterProvider.shutdown();
    },
  };
}

/** CPU (µs, user + system) of `fn`'s promise, start to settle. */
export async function cpuOf(fn: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** CPU (µs) of JSON.stringify per body over `bodies`, repeated until a few milliseconds have passed (the median of 5). */
export function stringifyPerBody(bodies: readonly unknown[]): number {
  const samples: number[] = [];
  for (let r = 0; r < 5; r++) {
    let done = 0;
    const start = process.cpuUsage();
    let used = 0;
    while (used < 5_000) {
      for (const b of bodies) JSON.stringify(b);
      done += bodies.length;
      const now = process.cpuUsage(start);
      used = now.user + now.system;
    }
    samples.push(used / done);
  }
  return median(samples);
}

/** The values of the comma-separated variable `name` that are among `all`; all of them when it is unset. */
export function envList<T extends string>(name: string, all: readonly T[]): T[] {
  const value = process.env[name];
  return value ? (value.split(',').filter((v) => (all as readonly string[]).includes(v)) as T[]) : [...all];
}
