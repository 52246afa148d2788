// The violation path without the SDK: the implicit log handed a 1,000-message
// Chat body that drops a message from the middle of a kept conversation,
// timed per call (median and minimum over conversations), against
// JSON.stringify of the same body. Run: npm run build && node --import tsx bench/violation-micro.ts
import { loadavg } from 'node:os';
import { toOpenAIChat, fromOpenAIChat } from '../dist/adapters';
import type { Message } from '../dist/index';
import { quietImplicitLogs } from './quiet-implicit';
import { agentLog, PROSE, requestOf } from './support';

const SIZE = Number(process.env.BENCH_SIZE ?? 1000);
const N = Number(process.env.BENCH_CALLS ?? 40);
async function main() {
  const { logs, reaction } = await quietImplicitLogs();
  const bodies: string[] = [];
  for (let c = 0; c < N; c++) {
    let named = false;
    const messages: Message[] = requestOf(agentLog(SIZE).deriveMessages()).map((m) => {
      if (typeof m.content !== 'string' || m.role === 'system') return m;
      const first = m.role === 'user' && !named;
      if (first) named = true;
      return { ...m, content: (first ? `Conversation ${c}. ` : '') + m.content + PROSE.ascii };
    });
    if (messages[messages.length - 1]!.role !== 'user') messages.push({ role: 'user', content: 'go on' });
    const wire = toOpenAIChat(messages);
    const text = JSON.stringify({ model: 'm', messages: wire });
    const first = logs.check(
      {
        provider: 'openai',
        model: 'm',
        messages: fromOpenAIChat(JSON.parse(text).messages),
        body: { text, format: 'openai.chat', readElements: fromOpenAIChat },
      },
      reaction,
    );
    first.pending?.reply([{ role: 'assistant', content: 'It looks dry.' }]);
    const next = [...wire, { role: 'assistant', content: 'It looks dry.' }, { role: 'user', content: 'And then?' + PROSE.ascii }];
    for (let i = next.length >> 1; i < next.length; i++)
      if ((next[i] as { role: string }).role === 'user') {
        next.splice(i, 1);
        break;
      }
    bodies.push(JSON.stringify({ model: 'm', messages: next }));
  }
  const times: number[] = [];
  let violations = 0;
  let byBytes = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (const text of bodies) {
    if (process.env.BENCH_COLD && gc) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const body = { text, format: 'openai.chat' as const, readElements: fromOpenAIChat };
    const start = process.hrtime.bigint();
    let outcome = logs.checkBytes(body, reaction);
    if (outcome !== undefined) byBytes++;
    outcome ??= logs.check({ provider: 'openai', model: 'm', messages: fromOpenAIChat(JSON.parse(text).messages), body }, reaction);
    times.push(Number(process.hrtime.bigint() - start) / 1e3);
    if (outcome.violation) violations++;
  }
  const obj = JSON.parse(bodies[0]!);
  const st: number[] = [];
  for (let r = 0; r < 200; r++) {
    const s = process.hrtime.bigint();
    JSON.stringify(obj);
    st.push(Number(process.hrtime.bigint() - s) / 1e3);
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const med = (xs: number[]) => sorted(xs)[xs.length >> 1]!;
  const s = med(st);
  console.log(
    `size ${SIZE}, ${N} calls, ${byBytes} by bytes, ${violations} violations; violation call median ${med(times).toFixed(0)} µs (min ${sorted(times)[0]!.toFixed(0)}, p25 ${sorted(times)[N >> 2]!.toFixed(0)}, p75 ${sorted(times)[(3 * N) >> 2]!.toFixed(0)}); stringify median ${s.toFixed(0)} µs; ratio median ${(med(times) / s).toFixed(2)} (p25 ${(sorted(times)[N >> 2]! / s).toFixed(2)}, p75 ${(sorted(times)[(3 * N) >> 2]! / s).toFixed(2)}); load ${loadavg()[0]!.toFixed(2)}`,
  );
}
void main();
