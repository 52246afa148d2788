// check() against JSON.stringify of the same request, in one run.
// Target (issue 2): ratio <= 0.05 at 1,000 messages; per-message cost at
// 10,000 no more than 3x the cost at 1,000.
// Second table (issue 22): the bound check when the log only grew since the
// last request checked against it, as an agent loop makes it: the log gains a
// turn, the app pushes the same two messages onto the history it keeps and
// re-sends, and the request path reads that history (the Chat reading, which
// reuses the canonical messages of the entries it saw before) and checks it.
// Only the check is timed. Target: <= 0.10x JSON.stringify of the request as
// sent at 1,000 messages.
// The request is the fold's messages as a request carries them (requestOf):
// stringifying the fold itself, with its bookkeeping and Date objects, made
// the denominator about ten times larger than what is sent.

import { check, type Message } from '../dist/index';
import { toOpenAIChat } from '../dist/adapters';
import { fromOpenAIChatReusing } from '../dist/integrations/openai/chat-adapter';
import { agentLog, fmt, median, requestOf, timePerCall } from './support';

const SIZES = [10, 100, 1_000, 10_000];
const VARIANTS = ['shared', 'copied'] as const;
type Variant = (typeof VARIANTS)[number];

interface Row {
  messages: number;
  stringifyNs: number;
  checkNs: Record<Variant, number>;
}

function measure(): Row[] {
  return SIZES.map((size) => {
    const log = agentLog(size);
    const sent = requestOf(log.deriveMessages());
    const requests: Record<Variant, Message[]> = {
      // The common case: the request is built from the fold (new message objects sharing its strings).
      shared: sent,
      // The provider round trip: equal messages, nothing shared.
      copied: JSON.parse(JSON.stringify(sent)) as Message[],
    };
    for (const variant of VARIANTS) if (!check(log, requests[variant]).ok) throw new Error('benchmark request must pass');
    // Checks first: timing JSON.stringify allocates enough to move the copies around the heap.
    const copied = timePerCall(() => check(log, requests.copied));
    const shared = timePerCall(() => check(log, requests.shared));
    return { messages: sent.length, stringifyNs: timePerCall(() => JSON.stringify(sent)), checkNs: { shared, copied } };
  });
}

measure(); // warm the JIT on every size; only the second pass is reported
const rows = measure();

console.table(
  rows.map((r) => ({
    messages: r.messages,
    'JSON.stringify': fmt(r.stringifyNs),
    ...Object.fromEntries(
      VARIANTS.flatMap((v) => [
        [`check (${v})`, fmt(r.checkNs[v])],
        [`ratio (${v})`, (r.checkNs[v] / r.stringifyNs).toFixed(4)],
        [`ns/msg (${v})`, (r.checkNs[v] / r.messages).toFixed(1)],
      ]),
    ),
  })),
);

const at = (messages: number) => rows.find((r) => r.messages === messages)!;
for (const v of VARIANTS) {
  const ratio = at(1_000).checkNs[v] / at(1_000).stringifyNs;
  const scaling = at(10_000).checkNs[v] / 10_000 / (at(1_000).checkNs[v] / 1_000);
  console.log(
    `${v}: ratio at 1,000 messages ${ratio.toFixed(4)} (target <= 0.05: ${ratio <= 0.05 ? 'met' : 'NOT met'}); ` +
      `per-message cost 10,000 vs 1,000 ${scaling.toFixed(2)}x (target <= 3x: ${scaling <= 3 ? 'met' : 'NOT met'})`,
  );
}

// The log only grew: each sample is one check right after the log gained a turn (two messages), the request
// the previous one plus those two. Up to 50 turns per run, from SIZE - 2 x steps messages to SIZE.
const GROWN_SIZES = [100, 1_000, 10_000];
const RUNS = Number(process.env.BENCH_GROWN_RUNS ?? 20);

interface GrownRow {
  messages: number;
  stringifyNs: number;
  requestPathNs: number;
  appObjectsNs: number;
}

function measureGrown(size: number): GrownRow {
  const requestPath: number[] = [];
  const appObjects: number[] = [];
  let sent: Message[] = [];
  const STEPS = Math.min(50, size >> 2);
  for (let run = 0; run < RUNS; run++) {
    const log = agentLog(size - 2 * STEPS);
    // The app's history: Chat entries it keeps and re-sends, one more turn each time.
    const history = toOpenAIChat(log.deriveMessages());
    check(log, fromOpenAIChatReusing(history));
    // Every other run: the app's own canonical objects, new each request (a framework converting its types).
    const viaRequestPath = run % 2 === 0;
    for (let step = 0; step < STEPS; step++) {
      const n = log.count;
      log.append('assistant_message', { content: `Step ${n}: it is ${n % 30} degrees in city ${n % 50}; no need for an umbrella.` });
      log.append('user_message', { content: `Question ${n}: and tomorrow, in city ${(n + 1) % 50}?` });
      const fold = log.deriveMessages();
      history.push(...toOpenAIChat(fold.slice(-2)));
      const request = viaRequestPath ? fromOpenAIChatReusing(history) : requestOf(fold);
      const start = process.hrtime.bigint();
      const result = check(log, request);
      const elapsed = Number(process.hrtime.bigint() - start);
      if (!result.ok) throw new Error('benchmark request must pass');
      (viaRequestPath ? requestPath : appObjects).push(elapsed);
      if (step === STEPS - 1) sent = requestOf(fold);
    }
  }
  return {
    messages: sent.length,
    stringifyNs: timePerCall(() => JSON.stringify(sent)),
    requestPathNs: median(requestPath),
    appObjectsNs: median(appObjects),
  };
}

for (const size of GROWN_SIZES) measureGrown(size); // warm-up
const grown = GROWN_SIZES.map(measureGrown);
console.log('The log only grew (one turn) since the last check; median of single checks:');
console.table(
  grown.map((r) => ({
    messages: r.messages,
    'JSON.stringify': fmt(r.stringifyNs),
    'check (request path)': fmt(r.requestPathNs),
    'ratio (request path)': (r.requestPathNs / r.stringifyNs).toFixed(4),
    'check (app objects, new each request)': fmt(r.appObjectsNs),
    'ratio (app objects)': (r.appObjectsNs / r.stringifyNs).toFixed(4),
  })),
);
const grownAt1000 = grown[GROWN_SIZES.indexOf(1_000)]!;
const grownRatio = grownAt1000.requestPathNs / grownAt1000.stringifyNs;
console.log(
  `log only grew, request path: ratio at 1,000 messages ${grownRatio.toFixed(4)} (target <= 0.10: ${grownRatio <= 0.1 ? 'met' : 'NOT met'})`,
);
