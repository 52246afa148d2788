// The violation path alone, through the real SDK clients: per round, a
// conversation of 1,000 messages (its first request, untimed), then one
// request that drops a message from its middle, timed on each side (a bare
// copy of the SDK and an instrumented one, as bench/sdk-calls.ts sets them
// up). Prints the CPU of the violating call per side and its share in units of
// JSON.stringify of the body; with BENCH_PROFILE=<file> it also samples the
// instrumented violating calls alone (the inspector's profiler is on only
// around them) and writes the self time per function, largest first.
// Run: npm run build && node --expose-gc --import tsx bench/violation-path.ts
//
// BENCH_SIZE (default 1000), BENCH_SHAPES (chat,anthropic), BENCH_OBJECTS
// (re-sent,fresh), BENCH_ROUNDS (default 15).

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { toAnthropic, toOpenAIChat } from '../dist/adapters';
import type { Message } from '../dist/index';
import { cpuOf, envList, REPLY, startSdkSides, stringifyPerBody, type Send, type Shape as SdkShape } from './sdk-sides';
import { agentLog, median, PROSE, requestOf } from './support';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with: node --expose-gc --import tsx bench/violation-path.ts');

type Shape = Extract<SdkShape, 'chat' | 'anthropic'>;
type Objects = 're-sent' | 'fresh';
const SIZE = Number(process.env.BENCH_SIZE ?? 1_000);
const SHAPES = envList<Shape>('BENCH_SHAPES', ['chat', 'anthropic']);
const OBJECTS = envList<Objects>('BENCH_OBJECTS', ['re-sent', 'fresh']);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const PROFILE = process.env.BENCH_PROFILE;
function transcript(size: number, conversation: string): Message[] {
  let named = false;
  return requestOf(agentLog(size).deriveMessages()).map((m) => {
    if (typeof m.content !== 'string' || m.role === 'system') return m;
    const first = m.role === 'user' && !named;
    if (first) named = true;
    return { ...m, content: (first ? `Conversation ${conversation}. ` : '') + m.content + PROSE.ascii };
  });
}

function bodyOf(shape: Shape, messages: readonly Message[]): Record<string, unknown> {
  if (shape === 'chat') return { model: 'bench', messages: toOpenAIChat(messages) };
  const { system, messages: list } = toAnthropic(messages);
  return { model: 'bench', max_tokens: 1024, system, messages: list };
}

/** The conversation's first request, and the next one: the reply and a question added, a question from the middle dropped. */
function bodies(shape: Shape, objects: Objects, conversation: string) {
  const first = bodyOf(shape, transcript(SIZE, conversation));
  const items = [...(first.messages as unknown[])];
  const turn = bodyOf(shape, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: REPLY },
    { role: 'user', content: `And after that?${PROSE.ascii}` },
  ]).messages as unknown[];
  items.push(...turn.slice(1));
  for (let i = items.length >> 1; i < items.length; i++) {
    const item = items[i] as { role?: unknown; content?: unknown };
    if (item.role === 'user' && typeof item.content === 'string') {
      items.splice(i, 1);
      break;
    }
  }
  const violation = { ...first, messages: items };
  return objects === 'fresh' ? { first: structuredClone(first), violation: structuredClone(violation) } : { first, violation };
}

function geometric(ratios: readonly number[]): { ratio: number; low: number; high: number } {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, logs.length - 1));
  const t =
    logs.length >= 30 ? 2 : [12.7, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.2, 2.18, 2.16, 2.14, 2.13][logs.length - 2]!;
  const half = (t * sd) / Math.sqrt(logs.length);
  return { ratio: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half) };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

async function main(): Promise<void> {
  const { bare, instrumented, violationsRecorded: violations, close } = await startSdkSides();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let sampled = 0;
  let conversation = 0;
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const shape of SHAPES) {
    for (const objects of OBJECTS) {
      const before = await violations();
      const bareCpu: number[] = [];
      const instrCpu: number[] = [];
      const stringify: number[] = [];
      for (let round = -2; round < ROUNDS; round++) {
        const sides: Array<[Send, number[]]> = [
          [bare, bareCpu],
          [instrumented, instrCpu],
        ];
        if (round % 2 === 1) sides.reverse();
        for (const [send, cpu] of sides) {
          const { first, violation } = bodies(shape, objects, String(conversation++));
          await send(shape, first);
          gc!();
          await new Promise((resolve) => setTimeout(resolve, 10));
          const profiling = PROFILE !== undefined && send === instrumented && round >= 0;
          if (profiling) await session.post('Profiler.start');
          const used = await cpuOf(() => send(shape, violation));
          if (profiling) {
            const { profile } = await session.post('Profiler.stop');
            const nodes = profile.nodes as ProfileNode[];
            const byId = new Map(nodes.map((n) => [n.id, n]));
            const parent = new Map<number, number>();
            for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
            const nameOf = (node: ProfileNode): string => {
              const f = node.callFrame;
              return `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
            };
            const deltas = profile.timeDeltas ?? [];
            for (let i = 0; i < (profile.samples ?? []).length; i++) {
              const id = profile.samples![i]!;
              const us = deltas[i + 1] ?? 0;
              const name = nameOf(byId.get(id)!);
              self.set(name, (self.get(name) ?? 0) + us);
              sampled += us;
              const seen = new Set<string>();
              for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
                const n = nameOf(byId.get(at)!);
                if (!n.includes('dist/') || seen.has(n)) continue;
                seen.add(n);
                inclusive.set(n, (inclusive.get(n) ?? 0) + us);
              }
            }
          }
          if (round >= 0) cpu.push(used);
          if (round >= 0 && send === bare) stringify.push(stringifyPerBody([violation]));
        }
      }
      const recorded = (await violations()) - before;
      const g = geometric(instrCpu.map((t, i) => t / bareCpu[i]!));
      const scale = median(bareCpu) / median(stringify);
      const share = (x: number) => ((x - 1) * scale).toFixed(2);
      console.log(
        `${shape} ${objects} ${SIZE}: bare ${median(bareCpu).toFixed(0)} µs, instrumented ${median(instrCpu).toFixed(0)} µs, ` +
          `stringify ${median(stringify).toFixed(0)} µs; violation / stringify ${share(g.ratio)} (${share(g.low)} to ${share(g.high)}); ` +
          `violations ${recorded} (expected ${ROUNDS + 2}); load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
  if (PROFILE !== undefined) {
    const rows = [...self].sort((a, b) => b[1] - a[1]);
    const line = ([name, us]: [string, number]) =>
      `${(us / 1000).toFixed(2).padStart(9)} ms ${((100 * us) / sampled).toFixed(1).padStart(5)}%  ${name}`;
    const within = [...inclusive].sort((a, b) => b[1] - a[1]);
    writeFileSync(
      PROFILE,
      `sampled ${(sampled / 1000).toFixed(1)} ms over the instrumented violating calls\n\nself time\n${rows.map(line).join('\n')}\n\n` +
        `inclusive time, the package's functions\n${within.map(line).join('\n')}\n`,
    );
  }
  session.disconnect();
  await close();
}

void main();
