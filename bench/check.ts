// check() against JSON.stringify of the same request, in one run.
// Target (issue 2): ratio <= 0.05 at 1,000 messages; per-message cost at
// 10,000 no more than 3x the cost at 1,000.
// The request is the fold's messages as a request carries them (requestOf):
// stringifying the fold itself, with its bookkeeping and Date objects, made
// the denominator about ten times larger than what is sent.

import { check, type Message } from '../dist/index';
import { agentLog, fmt, requestOf, timePerCall } from './support';

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
