// Shared by the benchmarks: timing in one run, and realistic transcripts.
// The benchmarks import the built package (dist/, `npm run build`, which
// `npm run bench` runs first): the code that ships, as tsc compiles it. The
// sources as tsx transforms them carry esbuild's helpers (`__name` around
// every closure made per request), which made the implicit log measure up to
// a third slower than it runs.

import { SessionLog, type Message } from '../dist/index';

/** Median nanoseconds per call of `fn`, over `batches` batches sized to take ~`targetMs` each. */
export function timePerCall(fn: () => unknown, { batches = 15, targetMs = 20 } = {}): number {
  let iterations = 1;
  for (;;) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (elapsed >= targetMs / 4 || iterations >= 1 << 24) break;
    iterations *= 2;
  }
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

/** A tool-calling agent transcript of about `messages` messages, with bookkeeping events. */
export function agentLog(messages: number): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'You are a helpful assistant that uses tools.' });
  let n = 1;
  let call = 0;
  while (n < messages) {
    log.append('turn_start', {});
    log.append('user_message', { content: `Question ${n}: what is the weather in city ${n % 50}, and should I bring an umbrella?` });
    n++;
    if (n + 3 <= messages) {
      const id = `call_${call++}`;
      log.append('step_start', {});
      log.append('assistant_message', { content: null, toolCalls: [{ id, name: 'get_weather', arguments: `{"city":"city ${n % 50}"}` }] });
      log.append('tool_call', { id });
      log.append('tool_result', { content: `{"temp":${n % 30},"rain":${n % 3 === 0}}`, toolCallId: id, name: 'get_weather' });
      log.append('step_end', {});
      n += 2;
    }
    if (n < messages) {
      log.append('assistant_message', { content: `It is ${n % 30} degrees; ${n % 3 === 0 ? 'bring' : 'no need for'} an umbrella.` });
      n++;
    }
    log.append('turn_end', {});
  }
  return log;
}

export type Text = 'ascii' | 'two-byte';
export const TEXTS: readonly Text[] = ['ascii', 'two-byte'];
/** Prose that makes a message the size of a real one (a few hundred bytes): ASCII, or Cyrillic (two bytes a character in UTF-8 and in V8's strings). */
export const PROSE: Record<Text, string> = {
  ascii:
    ' For context: I am planning a trip next week with two children, we will mostly walk between museums and parks, ' +
    'and I would rather not carry more than one bag, so tell me plainly what to pack and whether it is worth waiting.',
  'two-byte':
    ' Для контекста: на следующей неделе я планирую поездку с двумя детьми, мы будем в основном ходить пешком между ' +
    'музеями и парками, и я не хочу нести больше одной сумки, поэтому скажите прямо, что взять с собой.',
};

export function fmt(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Fold messages as a request carries them: the log's bookkeeping (metadata, createdAt) is never sent, and would only pad JSON.stringify. */
export function requestOf(messages: readonly Message[]): Message[] {
  return messages.map(({ role, content, toolCalls, toolCallId, name }) => ({ role, content, toolCalls, toolCallId, name }));
}

/** A ratio estimated from paired rounds, with its 95% confidence interval. */
export interface RatioEstimate {
  /** The geometric mean of the per-round ratios. */
  ratio: number;
  low: number;
  high: number;
  /** The ratio of the two sides' medians, as a cross-check. */
  ofMedians: number;
  text: string;
}

/**
 * The ratio of `measured` to `baseline`, two series of per-round times taken
 * back to back in each round: the geometric mean of the per-round ratios,
 * i.e. the mean of their logarithms exponentiated, with the 95% interval of
 * that mean (normal approximation, fine at the hundreds of rounds the
 * benches run). A log-ratio is symmetric (a round 10% slow and one 10% fast
 * cancel), so a no-op reads 1.00 however noisy the rounds: the trimmed
 * arithmetic mean of the ratios, used before, read 2-9% high on a no-op on a
 * loaded 2-core machine, since a ratio's distribution is skewed to the right.
 */
export function pairedRatio(measured: readonly number[], baseline: readonly number[]): RatioEstimate {
  const n = Math.min(measured.length, baseline.length);
  const logs: number[] = [];
  for (let i = 0; i < n; i++) logs.push(Math.log(measured[i]! / baseline[i]!));
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const half = (1.96 * sd) / Math.sqrt(n);
  const ratio = Math.exp(mean);
  const low = Math.exp(mean - half);
  const high = Math.exp(mean + half);
  const ofMedians = median(measured) / median(baseline);
  return { ratio, low, high, ofMedians, text: `${ratio.toFixed(3)} (${low.toFixed(3)}-${high.toFixed(3)})` };
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The median of `xs` with its distribution-free 95% interval: order statistics k and n-1-k, k = floor(n/2 - 0.98 sqrt n). */
export function medianInterval(xs: readonly number[]): { mid: number; low: number; high: number } {
  const s = [...xs].sort((a, b) => a - b);
  const k = Math.max(0, Math.floor(s.length / 2 - 0.98 * Math.sqrt(s.length)));
  return { mid: median(s), low: s[k]!, high: s[s.length - 1 - k]! };
}
