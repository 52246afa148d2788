// The CPU a real SDK call gains from the package with no session bound (the
// implicit conversation log), divided by JSON.stringify of the same body:
// the zero-code cost as an app pays it, reply path and fixed costs included.
// Run: npm run build && node --expose-gc --import tsx bench/sdk-calls.ts
//
// Each request shape goes through its real client (`openai` for Chat
// Completions and Responses, `@anthropic-ai/sdk` for Messages) to a loopback
// server in a child process, so the CPU counted (`process.cpuUsage`, user +
// system) is the client's alone. Each side is a copy of the SDK: the bare
// one is loaded before the instrumentation is enabled (and given the global
// fetch as it was), the instrumented one after.
//
// A round, per side: a conversation of its own (its first question says
// which), one untimed call that starts it, then CALLS timed calls, each the
// previous request plus the model's reply and a new question ("re-sent": the
// app's own objects, grown in place; "fresh": new objects for every call, built
// before the timer starts). The violation path: one timed call that also
// drops a message from the middle. Sides alternate which goes first.
//
// Reported per configuration: CPU per call of each side, JSON.stringify of
// the body per call, and the package's share, estimated as the geometric mean
// G of the per-round ratios instrumented/bare with its 95% interval, read in
// units of JSON.stringify: (G - 1) x bare / stringify (medians).
// Targets (issue 35): tracking at 1,000 messages <= 0.15x (worst over shapes
// and objects); per message at 10,000 <= 1.5x that at 1,000; the violation
// path at 1,000 <= 1.0x.
//
// BENCH_SIZES (default 10,100,1000,10000), BENCH_SHAPES (chat,anthropic,responses),
// BENCH_OBJECTS (re-sent,fresh), BENCH_TEXTS (ascii,two-byte), BENCH_ROUNDS
// (default 15) and BENCH_VIOLATION (1, default; 0 leaves it out) narrow a run.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { SessionInvariantInstrumentation } from '../dist/instrumentation';
import { toAnthropic, toOpenAIChat, toOpenAIResponses } from '../dist/adapters';
import type { Message } from '../dist/index';
import { setLogger } from '../dist/warnings';
import { agentLog, PROSE, requestOf, TEXTS as TEXTS_ALL, type Text } from './support';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with: npm run build && node --expose-gc --import tsx bench/sdk-calls.ts');

type Shape = 'chat' | 'anthropic' | 'responses';
type Objects = 're-sent' | 'fresh';
const list = <T extends string>(name: string, all: readonly T[]): T[] =>
  process.env[name] ? (process.env[name].split(',').filter((v) => (all as readonly string[]).includes(v)) as T[]) : [...all];
const SIZES = process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(',').map(Number) : [10, 100, 1_000, 10_000];
const SHAPES = list<Shape>('BENCH_SHAPES', ['chat', 'anthropic', 'responses']);
const OBJECTS = list<Objects>('BENCH_OBJECTS', ['re-sent', 'fresh']);
const TEXTS = list<Text>('BENCH_TEXTS', TEXTS_ALL);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const VIOLATION = process.env.BENCH_VIOLATION !== '0';
const CALLS = 4;

const REPLY = 'It looks dry; no umbrella needed.';

// The server: one canned reply per API, from a child process so that its CPU is not counted.
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
  const chunks = [];
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
`;

async function startServer(): Promise<{ baseURL: string; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  return { baseURL: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** A tool-calling transcript of about `size` canonical messages, its prose in `text`, the first question naming `conversation`. */
function transcript(size: number, text: Text, conversation: string): Message[] {
  const prose = PROSE[text];
  let named = false;
  return requestOf(agentLog(size).deriveMessages()).map((m) => {
    if (typeof m.content !== 'string' || m.role === 'system') return m;
    const first = m.role === 'user' && !named;
    if (first) named = true;
    return { ...m, content: (first ? `Conversation ${conversation}. ` : '') + m.content + prose };
  });
}

/** What the app passes to its SDK for these canonical messages. */
function bodyOf(shape: Shape, messages: readonly Message[]): Record<string, unknown> {
  if (shape === 'chat') return { model: 'bench', messages: toOpenAIChat(messages) };
  if (shape === 'responses') return { model: 'bench', input: toOpenAIResponses(messages) };
  const { system, messages: list } = toAnthropic(messages);
  return { model: 'bench', max_tokens: 1024, system, messages: list };
}
const listKey = (shape: Shape) => (shape === 'responses' ? 'input' : 'messages');

/**
 * The bodies of one round's calls: the first (untimed) and CALLS more, each
 * the previous plus the reply and a new question. Re-sent: one array the app
 * grows, whose entries are the same objects call after call (each call gets
 * the array as it stands: a copy of the list, the entries shared). Fresh: every
 * body a deep copy. The violation body drops a message from the middle.
 */
function roundBodies(shape: Shape, size: number, text: Text, objects: Objects, conversation: string) {
  const canonical = transcript(size, text, conversation);
  const first = bodyOf(shape, canonical);
  const key = listKey(shape);
  const items = [...(first[key] as unknown[])];
  const turn = (i: number): unknown[] => {
    const extra = bodyOf(shape, [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: REPLY },
      { role: 'user', content: `And after that, step ${i}?${PROSE[text]}` },
    ])[key] as unknown[];
    return extra.slice(1);
  };
  const bodies: Record<string, unknown>[] = [];
  for (let i = 0; i < CALLS; i++) {
    items.push(...turn(i));
    bodies.push({ ...first, [key]: objects === 'fresh' ? structuredClone(items) : items.slice() });
  }
  // A user question from the middle left out: a missing message.
  const dropped = items.slice();
  dropped.splice(middleQuestion(dropped), 1);
  const violation = { ...first, [key]: objects === 'fresh' ? structuredClone(dropped) : dropped };
  return { first: objects === 'fresh' ? structuredClone(first) : first, bodies, violation };
}

/** The index of a user question near the middle of `items` (a string-content user entry). */
function middleQuestion(items: readonly unknown[]): number {
  for (let i = items.length >> 1; i < items.length; i++) {
    const item = items[i] as { role?: unknown; content?: unknown };
    if (item.role === 'user' && typeof item.content === 'string') return i;
  }
  throw new Error('no user question after the middle');
}

/** Collects garbage, then lets the collector's background threads finish (their CPU is the process's too). */
async function settle(): Promise<void> {
  gc!();
  await new Promise((resolve) => setTimeout(resolve, 10));
}

/** CPU (µs, user + system) of `fn`'s promise, start to settle. */
async function cpuOf(fn: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** CPU (µs) of JSON.stringify per body over `bodies`, repeated until a few milliseconds have passed (the median of 5). */
function stringifyPerBody(bodies: readonly unknown[]): number {
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

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Two-sided 97.5% quantiles of Student's t, by degrees of freedom (2 past 30). */
const T975: Record<number, number> = {
  4: 2.776,
  5: 2.571,
  6: 2.447,
  7: 2.365,
  8: 2.306,
  9: 2.262,
  10: 2.228,
  12: 2.179,
  14: 2.145,
  19: 2.093,
  29: 2.045,
};
function geometric(ratios: readonly number[]): { ratio: number; low: number; high: number } {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, logs.length - 1));
  const df = logs.length - 1;
  const t = T975[df] ?? (df < 30 ? 2.2 : 2);
  const half = t * (sd / Math.sqrt(logs.length));
  return { ratio: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half) };
}

type Send = (shape: Shape, body: Record<string, unknown>) => Promise<unknown>;

async function main(): Promise<void> {
  setLogger({ warn: () => {} });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const server = await startServer();
  const load = createRequire(__filename);
  const unwrappedFetch = globalThis.fetch;
  const dropCopies = () => {
    for (const key of Object.keys(load.cache)) if (/\/node_modules\/(openai|@anthropic-ai\/sdk)\//.test(key)) delete load.cache[key];
  };
  const BareOpenAI = (load('openai') as typeof import('openai')).OpenAI;
  const BareAnthropic = (load('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk')).Anthropic;
  dropCopies();
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  const { OpenAI } = load('openai') as typeof import('openai');
  const { Anthropic } = load('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk');
  if (OpenAI === BareOpenAI || Anthropic === BareAnthropic)
    throw new Error('the bare clients must be copies the instrumentation does not patch');
  const options = { apiKey: 'bench', maxRetries: 0 };
  const sender = (openai: InstanceType<typeof OpenAI>, anthropic: InstanceType<typeof Anthropic>): Send => {
    return (shape, body) => {
      if (shape === 'chat') return openai.chat.completions.create(body as never);
      if (shape === 'responses') return openai.responses.create(body as never);
      return anthropic.messages.create(body as never);
    };
  };
  const instrumented = sender(
    new OpenAI({ ...options, baseURL: `${server.baseURL}/v1` }),
    new Anthropic({ ...options, baseURL: server.baseURL }),
  );
  const bare = sender(
    new BareOpenAI({ ...options, baseURL: `${server.baseURL}/v1`, fetch: unwrappedFetch }),
    new BareAnthropic({ ...options, baseURL: server.baseURL, fetch: unwrappedFetch }),
  );

  const violationsRecorded = async (): Promise<number> => {
    const { resourceMetrics } = await reader.collect();
    let total = 0;
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        if (metric.descriptor.name !== 'nous.session.invariant.violation') continue;
        for (const point of metric.dataPoints) total += point.value as number;
      }
    }
    return total;
  };

  const rows: Record<string, string>[] = [];
  const perMessage = new Map<string, number>();
  let conversation = 0;
  for (const shape of SHAPES) {
    for (const objects of OBJECTS) {
      for (const text of TEXTS) {
        for (const size of SIZES) {
          const rounds = size >= 10_000 ? Math.max(5, Math.ceil(ROUNDS / 3)) : ROUNDS;
          const before = await violationsRecorded();
          const bareCpu: number[] = [];
          const instrCpu: number[] = [];
          const stringify: number[] = [];
          const bareViolation: number[] = [];
          const instrViolation: number[] = [];
          const violationStringify: number[] = [];
          for (let round = -1; round < rounds; round++) {
            const sides: Array<[Send, number[], number[]]> = [
              [bare, bareCpu, bareViolation],
              [instrumented, instrCpu, instrViolation],
            ];
            if (round % 2 === 1) sides.reverse();
            for (const [send, cpu, violationCpu] of sides) {
              const { first, bodies } = roundBodies(shape, size, text, objects, String(conversation++));
              await send(shape, first);
              await settle();
              let used = 0;
              for (const body of bodies) used += await cpuOf(() => send(shape, body));
              if (round >= 0) cpu.push(used / bodies.length);
              if (round >= 0 && send === bare) stringify.push(stringifyPerBody(bodies));
              if (!VIOLATION) continue;
              // The violation path: the conversation as it stood, then a request that drops a message from it.
              const again = roundBodies(shape, size, text, objects, String(conversation++));
              await send(shape, again.first);
              await settle();
              const v = await cpuOf(() => send(shape, again.violation));
              if (round >= 0) violationCpu.push(v);
              if (round >= 0 && send === bare) violationStringify.push(stringifyPerBody([again.violation]));
            }
          }
          const recorded = (await violationsRecorded()) - before;
          const expected = VIOLATION ? rounds + 1 : 0;
          const report = (instr: number[], base: number[], str: number[]) => {
            const g = geometric(instr.map((t, i) => t / base[i]!));
            const scale = median(base) / median(str);
            const share = (x: number) => ((x - 1) * scale).toFixed(3);
            return { g, text: `${share(g.ratio)} (${share(g.low)} to ${share(g.high)})`, share: (g.ratio - 1) * scale };
          };
          const tracking = report(instrCpu, bareCpu, stringify);
          perMessage.set(`${shape}/${objects}/${text}/${size}`, (median(instrCpu) - median(bareCpu)) / size);
          const row: Record<string, string> = {
            config: `${shape} ${objects} ${text} ${size}`,
            'bare µs': median(bareCpu).toFixed(0),
            'instr µs': median(instrCpu).toFixed(0),
            'stringify µs': median(stringify).toFixed(0),
            'tracking / stringify': tracking.text,
          };
          if (VIOLATION) {
            row['violation / stringify'] = report(instrViolation, bareViolation, violationStringify).text;
          }
          row.violations = recorded === expected ? `${recorded} (as expected)` : `${recorded} (expected ${expected})`;
          rows.push(row);
          console.log(Object.values(row).join(' | '));
        }
      }
    }
  }
  console.table(rows);
  for (const shape of SHAPES)
    for (const objects of OBJECTS)
      for (const text of TEXTS) {
        const at1k = perMessage.get(`${shape}/${objects}/${text}/1000`);
        const at10k = perMessage.get(`${shape}/${objects}/${text}/10000`);
        if (at1k !== undefined && at10k !== undefined)
          console.log(`per message at 10,000 over 1,000, ${shape} ${objects} ${text}: ${(at10k / at1k).toFixed(2)} (target <= 1.5)`);
      }
  console.log(
    `${ROUNDS} rounds (a third at 10,000 messages) x ${CALLS} calls a side; share: (G - 1) x bare / stringify, G the geometric mean of per-round instrumented/bare CPU ratios (95% interval)`,
  );
  instrumentation.disable();
  server.stop();
  await meterProvider.shutdown();
}

void main();
