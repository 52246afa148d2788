// The log on 10,000 events: the cost of replaceRange, of the first fold after
// a replace (a rebuild), and of a plain append plus read (the memoized fold
// extended in place, no rebuild), measured in one run.

import { SessionLog } from '../dist/index';
import { SessionView, replaceRange } from '../dist/history';
import { agentLog, fmt } from './support';

const EVENTS = 10_000;
const REPEATS = 41;

function logOf(events: number): SessionLog {
  let messages = events;
  for (;;) {
    const log = agentLog(messages);
    if (log.count >= events) return SessionLog.fromEvents(log.events().slice(0, events));
    messages += events - log.count;
  }
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
}

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start);
}

/** The log's rebuild counter: internal, so absent from the published types the bench is checked against. */
const rebuildCount = (log: SessionLog): number => (log as unknown as { _rebuildCount: number })._rebuildCount;

const template = logOf(EVENTS).events();
const samples = { replaceRange: [] as number[], firstFold: [] as number[], appendRead: [] as number[], freshFold: [] as number[] };
let rebuildsByAppends = 0;

for (let i = 0; i < REPEATS; i++) {
  const log = SessionLog.fromEvents(template);
  const view = new SessionView(log);
  log.deriveMessages(); // warm fold
  samples.replaceRange.push(time(() => void replaceRange(view, 1, 50, { role: 'system', content: '[Conversation Summary]\n...' })));
  samples.firstFold.push(time(() => void log.deriveMessages()));
  const rebuilds = rebuildCount(log);
  samples.appendRead.push(
    time(() => {
      log.append('user_message', { content: 'one more' });
      log.deriveMessages();
    }),
  );
  rebuildsByAppends += rebuildCount(log) - rebuilds;
  const fresh = SessionLog.fromEvents(template);
  fresh.append('system_message', { content: 'x', replace: { start: 0, stop: 0 } }); // force a from-scratch fold
  samples.freshFold.push(time(() => void fresh.deriveMessages()));
}

console.log(`log of ${EVENTS} events, median of ${REPEATS} runs`);
console.table([
  { operation: 'replaceRange(view, 1, 50, summary) on a warm fold', time: fmt(median(samples.replaceRange)) },
  { operation: 'first fold after the replace (rebuild)', time: fmt(median(samples.firstFold)) },
  { operation: 'plain append + read (memoized, extended in place)', time: fmt(median(samples.appendRead)) },
  { operation: 'fold from scratch, for scale', time: fmt(median(samples.freshFold)) },
]);
console.log(`fold rebuilds caused by ${REPEATS} plain appends: ${rebuildsByAppends}`);
console.log(`append + read costs ${(median(samples.appendRead) / median(samples.firstFold)).toFixed(4)}x a rebuild`);
