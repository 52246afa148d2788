// The implicit log (zero-code mode) against JSON.stringify of the same
// request, in one run: its cost per request, the heap it keeps per
// conversation, and the violation paths (the bound check's and its own).
// Run: npm run build && node --expose-gc --import tsx bench/implicit.ts
// Targets: tracking at most 0.1x JSON.stringify at 1,000 messages, growing
// linearly (read here as: per-message cost at 10,000 at most 2x that at
// 1,000); a violation path at most 0.5x JSON.stringify at 1,000 messages.

import { trace } from '@opentelemetry/api';
import { check, type Message } from '../dist/index';
import { toOpenAIChat } from '../dist/adapters';
import { fromOpenAIChatReusing } from '../dist/integrations/openai/chat-adapter';
import { openAIBodyRequest } from '../dist/integrations/openai/model-request';
import type { CheckReaction } from '../dist/invariant/verify';
import type { ViolationDetails } from '../dist/invariant/violation';
import { ImplicitLogs } from '../dist/request-path/implicit/implicit-logs';
import type { InvariantInstruments } from '../dist/telemetry/instruments';
import { setLogger } from '../dist/telemetry/logger';
import { agentLog, fmt, requestOf, timePerCall } from './support';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with: npm run build && node --expose-gc --import tsx bench/implicit.ts');

setLogger({ warn: () => {} }); // each violation logs a line; the console is not what is measured
const noop = { add: () => {} };
const instruments = { violations: noop, checks: noop, internalErrors: noop, evictions: noop } as unknown as InvariantInstruments;
// What a seam passes: warn mode, content capture off (the default), a non-recording span.
const reaction: CheckReaction = {
  mode: 'warn',
  log: 'implicit',
  agentName: undefined,
  provider: 'bench',
  captureContent: false,
  instruments,
  mayThrow: false,
  span: trace.wrapSpanContext({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: 0 }),
};
const newLogs = () => new ImplicitLogs({ maxConversations: 1_000, idleTimeoutMs: 3_600_000 }, () => instruments);
const send = (logs: ImplicitLogs, messages: readonly Message[]) => logs.check({ provider: 'bench', model: 'm', messages }, reaction);
/** A request as the openai SDK hook reads it: the app's Chat Completions messages, read (reusing what it read before), then tracked. */
const sendRaw = (logs: ImplicitLogs, raw: readonly unknown[]) =>
  logs.check(openAIBodyRequest('/v1/chat/completions', { model: 'm', messages: raw }, fromOpenAIChatReusing)!, reaction);
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** A turn boundary: the previous request (ends in a user message or tool result, not a prefill), the model's reply to it, and the next request (+ reply + one new user message). */
function transcript(size: number) {
  const fold = requestOf(agentLog(size - 1).deriveMessages());
  const previous = fold.slice(0, -1);
  const reply = fold.at(-1)!;
  if (reply.role !== 'assistant' || previous.at(-1)!.role === 'assistant') throw new Error('unexpected transcript shape');
  const next: Message[] = [...fold, { role: 'user', content: 'Thanks. And tomorrow, in the same city?' }];
  const nextReply: Message = { role: 'assistant', content: 'Tomorrow looks dry.' };
  return { previous, reply, next, nextReply };
}

interface State {
  logs: ImplicitLogs;
  request: Message[];
  reply: Message;
  /** The request as the app hands it to the openai SDK (Chat Completions messages). */
  raw?: unknown[];
}

/**
 * Paired timing of calls that change state: each call needs a log in the
 * state before it, so every batch first prepares its states (untimed),
 * collects garbage, then times `baseline` over all of them and `subject`
 * over all of them, alternating which goes first. Reports the median per
 * call of each and the median of the per-batch ratios.
 */
function paired(
  prepare: () => State,
  baseline: (s: State) => unknown,
  subject: (s: State) => unknown,
  { batches = 15, targetMs = 20 } = {},
) {
  const over = (states: State[], fn: (s: State) => unknown) => {
    const start = process.hrtime.bigint();
    for (const s of states) fn(s);
    return Number(process.hrtime.bigint() - start) / states.length;
  };
  const probe = Array.from({ length: 5 }, prepare);
  const perCall = Math.max(over(probe, baseline), over(probe, subject));
  const size = Math.min(2_000, Math.max(5, Math.ceil((targetMs * 1e6) / perCall)));
  const base: number[] = [];
  const subj: number[] = [];
  for (let b = 0; b < batches; b++) {
    const states = Array.from({ length: size }, prepare);
    gc!();
    if (b % 2 === 0) {
      base.push(over(states, baseline));
      subj.push(over(states, subject));
    } else {
      subj.push(over(states, subject));
      base.push(over(states, baseline));
    }
  }
  return { baseNs: median(base), subjectNs: median(subj), ratio: median(subj.map((s, i) => s / base[i]!)) };
}

const stringify = (s: State) => JSON.stringify(s.raw ?? s.request);
// Timed: one request checked against the conversation it continues, and the model's one-message reply handed back.
const track = (s: State) => send(s.logs, s.request).pending?.reply([s.reply]);
// Timed: the same, from the app's Chat Completions messages, as the openai SDK hook reads them.
const trackRaw = (s: State) => sendRaw(s.logs, s.raw!).pending?.reply([s.reply]);

/** A log that has tracked the previous request and its reply. Fresh: every message a new object (an HTTP body, a framework's copy). Same: the app re-sends its own objects. */
function prepared(t: ReturnType<typeof transcript>, variant: 'fresh' | 'same', request: Message[] = t.next): () => State {
  return () => {
    const logs = newLogs();
    if (variant === 'fresh') {
      send(logs, copy(t.previous)).pending!.reply([copy(t.reply)]);
      return { logs, request: copy(request), reply: copy(t.nextReply) };
    }
    send(logs, t.previous).pending!.reply([t.reply]);
    return { logs, request, reply: t.nextReply };
  };
}

/**
 * The same, from the app's own Chat Completions messages through the SDK
 * hook's reading. Same: the app keeps one history array of message objects
 * and re-sends them (the previous request was read through the hook too).
 * Fresh: it builds new objects for every request (a framework converting
 * its own message types), so nothing read before can be reused.
 */
function preparedRaw(t: ReturnType<typeof rawTranscript>, variant: 'fresh' | 'same'): () => State {
  return () => {
    const logs = newLogs();
    const previous = variant === 'fresh' ? copy(t.previous) : t.previous;
    sendRaw(logs, previous).pending!.reply([t.reply]);
    const raw = variant === 'fresh' ? copy(t.next) : t.next;
    return { logs, request: [], raw, reply: t.nextReply };
  };
}

/** `transcript` as the app holds it: Chat Completions messages, the next request re-using the previous one's objects. */
function rawTranscript(size: number) {
  const t = transcript(size);
  const previous = toOpenAIChat(t.previous) as unknown[];
  const next = [...previous, ...(toOpenAIChat(t.next.slice(previous.length)) as unknown[])];
  return { previous, next, reply: t.reply, nextReply: t.nextReply };
}

function expect(found: ViolationDetails | undefined, kind: string | undefined, what: string): void {
  if (found?.kind !== kind) throw new Error(`${what}: expected ${kind ?? 'no violation'}, got ${found?.kind ?? 'no violation'}`);
}

const SIZES = [10, 100, 1_000, 10_000];
const VARIANTS = ['fresh', 'same'] as const;

function measureTracking() {
  return SIZES.flatMap((size) => {
    const t = rawTranscript(size);
    return VARIANTS.map((variant) => {
      const prepare = preparedRaw(t, variant);
      const state = prepare();
      expect(sendRaw(state.logs, state.raw!).violation, undefined, `${variant} continuation`);
      return { messages: t.next.length, variant, ...paired(prepare, stringify, trackRaw) };
    });
  });
}

/** A 1,000-message request with one message dropped, rewritten, or two swapped, near the middle (at a user message). */
function violating(messages: readonly Message[]) {
  const at = messages.findIndex((m, i) => i >= messages.length >> 1 && m.role === 'user');
  const dropped = messages.filter((_, i) => i !== at);
  const rewritten = messages.map((m, i) => (i === at ? { ...m, content: `${String(m.content)} (edited)` } : m));
  const reversed = messages.slice();
  [reversed[at], reversed[at + 1]] = [reversed[at + 1]!, reversed[at]!];
  return { dropped, rewritten, reversed };
}

function measureViolations() {
  const log = agentLog(1_000);
  const fold = requestOf(log.deriveMessages());
  const cases = { 'ok (passes)': fold, ...violating(fold) };
  const rows = Object.entries(cases).map(([name, messages]) => {
    const request = copy(messages); // as a provider request arrives: nothing shared with the log
    const kind = check(log, request).ok ? 'ok' : (check(log, request) as { violation: ViolationDetails }).violation.kind;
    const checkNs = timePerCall(() => check(log, request));
    const stringifyNs = timePerCall(() => JSON.stringify(request));
    return { path: `bound check: ${name}`, messages: request.length, kind, stringifyNs, checkNs, ratio: checkNs / stringifyNs };
  });
  // The implicit log: the next request of a tracked conversation, with a message dropped in the middle (rejoin: a violation, then a new branch).
  const t = transcript(1_000);
  const { dropped } = violating(t.next);
  for (const [name, request, kind] of [
    ['ok (continues)', t.next, undefined],
    ['dropped', dropped, 'missing_message'],
  ] as const) {
    const prepare = prepared(t, 'fresh', request);
    expect(send(prepare().logs, request).violation, kind, `implicit ${name}`);
    const m = paired(prepare, stringify, track);
    rows.push({
      path: `implicit log: ${name}`,
      messages: request.length,
      kind: kind ?? 'ok',
      stringifyNs: m.baseNs,
      checkNs: m.subjectNs,
      ratio: m.ratio,
    });
  }
  return rows;
}

/** Heap kept per conversation: `count` conversations tracked in one log, each its own request and reply, the request objects dropped before measuring. */
function heapPerConversation(size: number, count = 200) {
  const t = transcript(size);
  const template = JSON.stringify({ previous: t.previous, reply: t.reply });
  const trackOne = (logs: ImplicitLogs, i: number) => {
    const { previous, reply } = JSON.parse(template) as { previous: Message[]; reply: Message };
    previous[1]!.content = `Conversation ${i}. ${String(previous[1]!.content)}`; // distinct first user message: a conversation of its own
    send(logs, previous).pending!.reply([reply]);
  };
  trackOne(newLogs(), -1); // warms the module's shared sketch table, which is not per conversation
  gc!();
  gc!();
  const before = process.memoryUsage().heapUsed;
  const logs = newLogs();
  for (let i = 0; i < count; i++) trackOne(logs, i);
  gc!();
  gc!();
  const after = process.memoryUsage().heapUsed;
  if (logs.size !== count) throw new Error(`expected ${count} conversations, kept ${logs.size}`);
  const messages = t.previous.length + 1;
  return { messages, bytes: (after - before) / count, perMessage: (after - before) / count / messages };
}

measureTracking(); // warm-up: the JIT on every size and path; only the second pass is reported
measureViolations();
const tracking = measureTracking();
const violations = measureViolations();
const heap = [100, 1_000].map((size) => heapPerConversation(size));

console.log(
  '1. implicit tracking per request, from the Chat Completions messages the app hands the openai SDK (read, checked, reply handed back), against JSON.stringify of them',
);
console.table(
  tracking.map((r) => ({
    messages: r.messages,
    objects: r.variant,
    'JSON.stringify': fmt(r.baseNs),
    tracking: fmt(r.subjectNs),
    ratio: r.ratio.toFixed(4),
    'ns/msg': (r.subjectNs / r.messages).toFixed(1),
  })),
);
for (const variant of VARIANTS) {
  const at = (n: number) => tracking.find((r) => r.variant === variant && r.messages >= n && r.messages < n * 1.1)!;
  const ratio = at(1_000).ratio;
  const growth = at(10_000).subjectNs / at(10_000).messages / (at(1_000).subjectNs / at(1_000).messages);
  const met = ratio <= 0.1 && growth <= 2;
  console.log(
    `${variant} objects: ratio at 1,000 messages ${ratio.toFixed(4)}, per-message cost 10,000 vs 1,000 ${growth.toFixed(2)}x; ` +
      `target: at most 0.1 at 1,000 messages, linear growth: ${met ? 'met' : 'NOT met'}`,
  );
}

console.log('\n2. heap kept per tracked conversation (200 conversations, content capture off)');
console.table(
  heap.map((h) => ({ messages: h.messages, 'bytes/conversation': Math.round(h.bytes), 'bytes/message': h.perMessage.toFixed(1) })),
);

console.log('\n3. violation paths at 1,000 messages, against JSON.stringify of the request');
console.table(
  violations.map((r) => ({
    path: r.path,
    messages: r.messages,
    found: r.kind,
    'JSON.stringify': fmt(r.stringifyNs),
    check: fmt(r.checkNs),
    ratio: r.ratio.toFixed(4),
  })),
);
for (const prefix of ['bound check', 'implicit log']) {
  const worst = violations.filter((r) => r.path.startsWith(prefix) && r.kind !== 'ok').reduce((a, b) => (b.ratio > a.ratio ? b : a));
  console.log(
    `${prefix}: worst violation ratio ${worst.ratio.toFixed(4)} (${worst.path}); target: at most 0.5 at 1,000 messages: ${worst.ratio <= 0.5 ? 'met' : 'NOT met'}`,
  );
}
