// The implicit log driven directly with canonical messages: what each check
// found, with replies handed back as a seam would.

import { trace } from '@opentelemetry/api';
import type { Message } from '../../src/index';
import type { ViolationDetails } from '../../src/invariant/violation';
import type { InvariantInstruments } from '../../src/telemetry/instruments';
import type { CheckReaction } from '../../src/reaction/act-on-check';
import type { PendingReply } from '../../src/request-path/reply';
import { ImplicitLogs } from '../../src/request-path/implicit/implicit-logs';
import { inFrameworkRun, type RunKey } from '../../src/request-path/run';
import { setLogger } from '../../src/warnings';

export interface Sent {
  violation: ViolationDetails | undefined;
  pending: PendingReply | undefined;
}

export interface ImplicitHarness {
  logs: ImplicitLogs;
  evictions: string[];
  /** Sends `messages`, within `run` when given. */
  send(messages: readonly Message[], options?: { run?: RunKey }): Sent;
  /** Sends, then hands the model's reply back. */
  turn(messages: readonly Message[], reply: Message, options?: { run?: RunKey }): Sent;
  advance(ms: number): void;
}

/** Instruments that count nothing, for tests that read what a check returns rather than what it counts. */
export const UNCOUNTED: InvariantInstruments = (() => {
  const counter = { add: () => {} };
  return { violations: counter, checks: counter, internalErrors: counter, evictions: counter } as unknown as InvariantInstruments;
})();

export function implicitHarness(
  limits: { maxConversations?: number; idleTimeoutMs?: number; captureContent?: boolean; mode?: 'warn' | 'strict' } = {},
): ImplicitHarness {
  let now = 1_000_000;
  const evictions: string[] = [];
  const counter = { add: () => {} };
  const instruments = {
    violations: counter,
    checks: counter,
    internalErrors: counter,
    evictions: {
      add: (_n: number, attributes: Record<string, string>) => evictions.push(attributes['nous.session.invariant.eviction.reason']!),
    },
  } as unknown as InvariantInstruments;
  const logs = new ImplicitLogs(
    { maxConversations: limits.maxConversations ?? 1000, idleTimeoutMs: limits.idleTimeoutMs ?? 60_000, now: () => now },
    () => instruments,
  );
  setLogger({ warn: () => {} });
  const send = (messages: readonly Message[], options: { run?: RunKey } = {}): Sent => {
    const check = () =>
      logs.check(
        { provider: 'test', model: 'm', messages },
        implicitReaction(instruments, { mode: limits.mode ?? 'warn', captureContent: limits.captureContent ?? true }),
      );
    const outcome = options.run === undefined ? check() : inFrameworkRun(options.run, check);
    return { violation: outcome.violation, pending: outcome.pending };
  };
  return {
    logs,
    evictions,
    send,
    turn(messages, reply, options) {
      const sent = send(messages, options);
      sent.pending?.reply([reply]);
      return sent;
    },
    advance(ms) {
      now += ms;
    },
  };
}

/** What a seam hands the implicit log for a request with no log bound: `mode` and content capture as given, a non-recording span. */
export function implicitReaction(
  instruments: InvariantInstruments,
  { mode = 'warn', captureContent = false }: { mode?: 'warn' | 'strict'; captureContent?: boolean } = {},
): CheckReaction {
  return {
    mode,
    log: 'implicit',
    agentName: undefined,
    provider: 'test',
    captureContent,
    span: trace.wrapSpanContext({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: 0 }),
    instruments,
    mayThrow: mode === 'strict',
  };
}
