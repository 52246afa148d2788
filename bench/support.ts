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

export function fmt(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Fold messages as a request carries them: the log's bookkeeping (metadata, createdAt) is never sent, and would only pad JSON.stringify. */
export function requestOf(messages: readonly Message[]): Message[] {
  return messages.map(({ role, content, toolCalls, toolCallId, name }) => ({ role, content, toolCalls, toolCallId, name }) as Message);
}
