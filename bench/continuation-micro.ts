// A continuation's check without the SDK: the implicit log handed the
// serialised Chat body of each next request of many conversations (the reply
// observed, then a user message), `checkBytes` timed per call, against
// JSON.stringify of the same body. The per-call figure of the byte fast path
// (docs/performance.md). Run: npm run build && node --expose-gc --import tsx bench/continuation-micro.ts
// BENCH_SIZE (messages, default 1000), BENCH_CONVERSATIONS (default 40),
// BENCH_STEPS (continuations each, default 20), BENCH_TEXT (ascii | two-byte).
import { loadavg } from 'node:os';
import { toOpenAIChat, fromOpenAIChat } from '../dist/adapters';
import type { Message } from '../dist/index';
import { quietImplicitLogs } from './quiet-implicit';
import { agentLog, median, PROSE, requestOf, type Text } from './support';

const SIZE = Number(process.env.BENCH_SIZE ?? 1000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 40);
const STEPS = Number(process.env.BENCH_STEPS ?? 20);
const TEXT = (process.env.BENCH_TEXT ?? 'ascii') as Text;
const REPLY = { role: 'assistant', content: 'It looks dry; no umbrella needed.' };

async function main(): Promise<void> {
  const { logs, reaction } = await quietImplicitLogs();
  const conversations = Array.from({ length: CONVERSATIONS }, (_, c) => {
    let named = false;
    const messages: Message[] = requestOf(agentLog(SIZE).deriveMessages()).map((m) => {
      if (typeof m.content !== 'string' || m.role === 'system') return m;
      const first = m.role === 'user' && !named;
      if (first) named = true;
      return { ...m, content: (first ? `Conversation ${c}. ` : '') + m.content + PROSE[TEXT] };
    });
    if (messages[messages.length - 1]!.role !== 'user') messages.push({ role: 'user', content: 'go on' });
    return [...toOpenAIChat(messages)] as object[];
  });
  const times: number[] = [];
  const ratios: number[] = [];
  let byBytes = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let step = 0; step <= STEPS; step++) {
    for (const wire of conversations) {
      if (step > 0) wire.push(REPLY, { role: 'user', content: `Step ${step}?` + PROSE[TEXT] });
      const request = { model: 'm', messages: wire };
      const start = process.hrtime.bigint();
      const text = JSON.stringify(request);
      const stringified = process.hrtime.bigint();
      const body = { text, format: 'openai.chat' as const, readElements: fromOpenAIChat };
      let outcome = step === 0 ? undefined : logs.checkBytes(body, reaction);
      const checked = process.hrtime.bigint();
      if (outcome !== undefined) {
        byBytes++;
        times.push(Number(checked - stringified) / 1e3);
        ratios.push(Number(checked - stringified) / Number(stringified - start));
      }
      outcome ??= logs.check({ provider: 'openai', model: 'm', messages: fromOpenAIChat(JSON.parse(text).messages), body }, reaction);
      outcome.pending?.reply([REPLY as Message]);
    }
    gc?.();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!;
  console.log(
    `${TEXT} ${SIZE} messages: ${byBytes} of ${CONVERSATIONS * STEPS} continuations by bytes; checkBytes median ${median(times).toFixed(1)} µs (p10 ${q(0.1).toFixed(1)}, p90 ${q(0.9).toFixed(1)}); ratio to its stringify median ${median(ratios).toFixed(3)}; load ${loadavg()[0]!.toFixed(2)}`,
  );
}
void main();
