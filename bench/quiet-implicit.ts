// An implicit log handed requests directly (no SDK, no HTTP), for the micro
// benches: the byte hash loaded, warnings silenced, no-op instruments and a
// warn-mode reaction.
import { trace } from '@opentelemetry/api';
import { ImplicitLogs } from '../dist/request-path/implicit/implicit-logs';
import { loadByteHasher } from '../dist/request-path/implicit/bytes/byte-hash';
import type { CheckReaction } from '../dist/reaction/act-on-check';
import { setLogger } from '../dist/warnings';

export async function quietImplicitLogs(): Promise<{ logs: ImplicitLogs; reaction: CheckReaction }> {
  await loadByteHasher();
  setLogger({ warn: () => {} });
  const counter = { add: () => {} };
  const instruments = { violations: counter, checks: counter, internalErrors: counter, evictions: counter } as never;
  const reaction: CheckReaction = {
    mode: 'warn',
    log: 'implicit',
    agentName: undefined,
    provider: 'openai',
    captureContent: false,
    span: trace.wrapSpanContext({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: 0 }),
    instruments,
    mayThrow: false,
  };
  return { logs: new ImplicitLogs({ maxConversations: 1000, idleTimeoutMs: 3_600_000 }, () => instruments), reaction };
}
