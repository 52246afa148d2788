// Issue 37 items 6 to 9, on the real OTel SDK and the real `openai` SDK
// against the loopback provider: values a caller controls (agent name,
// conversation id, message text) stay bounded, one-line, readable and free of
// secrets in everything the package writes (docs/behaviour.md §6.3, §6.6).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionLog, VIOLATION_EVENT, VIOLATION_METRIC } from '../../src/index';
import { CHECKS_METRIC, INTERNAL_ERROR_METRIC } from '../../src/telemetry/semconv';
import { MAX_COUNTED_AGENT_NAMES, OTHER_AGENTS } from '../../src/telemetry/violation-event';
import { MAX_WRITTEN_LENGTH } from '../../src/telemetry/written-value';
import { ghostRequest, useInstrumentedProvider } from '../support/instrumented';
import { runNode } from '../support/run-node';
import { captureWarnings } from '../support/warnings';

const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();

afterEach(() => {
  suite.env.instrumentation.setConfig({ mode: 'warn' });
  suite.env.otel.logs.reset();
  vi.unstubAllEnvs();
});

/** A request with a user message the bound log does not hold: one extra_message. */
function ghost(options: { conversationId?: unknown; agentName?: unknown }, text = 'ghost text') {
  const log = new SessionLog();
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  return ghostRequest(suite, log, options, text);
}

const violationEvents = () =>
  suite.env.otel.spans.getFinishedSpans().flatMap((span) => span.events.filter((e) => e.name === VIOLATION_EVENT));

const lines = () => warn.mock.calls.map((c) => String(c[0]));

/** Every string in a set of attributes, arrays included. */
function strings(attributes: Record<string, unknown> | undefined): string[] {
  return Object.values(attributes ?? {})
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is string => typeof v === 'string');
}

const CUT = /…\[cut, \d+ characters\]$/;

describe('item 6: every written value is bounded', () => {
  it('a 1 MB agent name and conversation id reach no span, event, record, counter or line whole', async () => {
    const huge = 'a'.repeat(1_000_000);
    await ghost({ agentName: huge, conversationId: `c${huge}` });
    const bound = MAX_WRITTEN_LENGTH + 40;
    const event = violationEvents()[0]!;
    expect(event.attributes?.['gen_ai.agent.name']).toMatch(CUT);
    expect(event.attributes?.['gen_ai.conversation.id']).toMatch(CUT);
    for (const span of suite.env.otel.spans.getFinishedSpans()) {
      for (const s of strings(span.attributes)) expect(s.length).toBeLessThanOrEqual(bound);
      for (const e of span.events) for (const s of strings(e.attributes)) expect(s.length).toBeLessThanOrEqual(bound);
    }
    for (const record of suite.env.otel.logs.getFinishedLogRecords())
      for (const s of strings(record.attributes)) expect(s.length).toBeLessThanOrEqual(bound + 400);
    for (const name of [VIOLATION_METRIC, CHECKS_METRIC])
      for (const point of await suite.env.otel.points(name))
        for (const s of strings(point.attributes)) expect(s.length).toBeLessThanOrEqual(bound);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]!.length).toBeLessThan(2 * bound + 1000);
  });

  it('the counters carry at most the first 100 distinct agent names, the rest as one [other agents] series', async () => {
    for (let i = 0; i < MAX_COUNTED_AGENT_NAMES + 20; i++) await ghost({ agentName: `user-agent-${i}` });
    const agents = new Set((await suite.env.otel.points(CHECKS_METRIC)).map((p) => p.attributes['gen_ai.agent.name']));
    expect(agents.size).toBeLessThanOrEqual(MAX_COUNTED_AGENT_NAMES + 1);
    expect(agents).toContain(OTHER_AGENTS);
    const violations = await suite.env.otel.points(VIOLATION_METRIC);
    expect(new Set(violations.map((p) => p.attributes['gen_ai.agent.name'])).size).toBeLessThanOrEqual(MAX_COUNTED_AGENT_NAMES + 1);
    // The span events keep each name: only the counters are folded.
    expect(violationEvents().at(-1)!.attributes?.['gen_ai.agent.name']).toBe(`user-agent-${MAX_COUNTED_AGENT_NAMES + 19}`);
  });
});

describe('item 7: console lines stay one line, with no escape sequences', () => {
  it('on the console default, a newline cannot forge a line and ESC and OSC reach no terminal', async () => {
    // A process of its own, so the line goes to the real console sink and stderr as an app's would.
    const app = `
      const { SessionLog, verify } = require('./dist/index.js');
      const log = new SessionLog();
      log.append('user_message', { content: 'hi' });
      verify(log, [{ role: 'user', content: 'hi' }, { role: 'user', content: 'ghost' }], {
        agentName: 'planner\\n[nous-session-invariant] forged line\\x1b[2J\\x1b]0;owned\\x07',
        conversationId: 'c\\u2028d\\x9b',
      });`;
    const run = await runNode(['-e', app], {});
    const out = run.stderr.split('\n').filter((l) => l !== '');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\[nous-session-invariant\] session invariant violation: extra_message/);
    // eslint-disable-next-line no-control-regex -- the assertion is about control characters
    expect(out[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(out[0]).toContain('agent planner\\n[nous-session-invariant] forged line\\x1b[2J\\x1b]0;owned\\x07');
    expect(out[0]).toContain('conversation c\\u2028d\\x9b');
  });
});

describe('item 8: hostile values are read safely, and internal-error lines are true', () => {
  it.each([
    [
      'whose toString throws',
      {
        toString() {
          throw new Error('no');
        },
      },
      '[unreadable value]',
    ],
    ['a Symbol', Symbol('planner'), 'Symbol(planner)'],
  ])('an agent name %s still gives the line, the event and the counter, and no internal error', async (_name, agentName, shown) => {
    await ghost({ agentName });
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toContain(`agent ${shown}`);
    expect(violationEvents()[0]!.attributes?.['gen_ai.agent.name']).toBe(shown);
    expect(suite.env.otel.logs.getFinishedLogRecords()).toHaveLength(1);
    expect(await suite.env.otel.points(INTERNAL_ERROR_METRIC)).toEqual([]);
  });

  it('a failure part-way says what was recorded, never that the request went unchecked', async () => {
    const provider = {
      getLogger: () => ({
        emit: () => {
          throw new Error('log pipeline down');
        },
      }),
    };
    suite.env.instrumentation.setLoggerProvider(provider as never);
    try {
      await ghost({ agentName: 'planner' });
    } finally {
      suite.env.instrumentation.setLoggerProvider(suite.env.otel.loggerProvider);
    }
    expect(violationEvents()).toHaveLength(1);
    expect(lines()).toEqual([
      expect.stringMatching(
        /^internal error in recording a check \(the violation was recorded \(span event, counter\), without its log event and warning line\): Error: log pipeline down$/,
      ),
    ]);
    expect(lines().join('\n')).not.toMatch(/unchecked/);
  });
});

describe('item 9: secrets are redacted from previews by default', () => {
  const secrets = [
    'sk-proj-Ab3dEf6hIj9kLm2nOp5q',
    'sk-ant-api03-Zy8xWv7uTs6rQp',
    'sk-1234567890abcdefghij',
    'Bearer eyJhbGciOiJIUzI1.eyJzdWIiOiIx',
    'ghp_aBcDeFgHiJkLmNoPqRsTuV',
    'AKIAIOSFODNN7EXAMPLE',
  ];

  it('with content capture on, no key shape leaves in the event or the line', async () => {
    suite.env.instrumentation.setConfig({ mode: 'warn', captureContent: true });
    await ghost({}, `keys: ${secrets.join(' ')} ok`);
    const previews = JSON.stringify(violationEvents()[0]!.attributes?.['nous.session.invariant.extra.previews']);
    expect(previews).toContain('[redacted]');
    expect(previews).toContain('keys: ');
    for (const secret of secrets) {
      const tail = secret.split(/\s/).at(-1)!;
      expect(previews).not.toContain(tail);
      expect(lines()[0]).not.toContain(tail);
    }
  });

  it('NOUS_SESSION_INVARIANT_REDACT_SECRETS=false turns it off', async () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT_REDACT_SECRETS', 'false');
    suite.env.instrumentation.setConfig({ mode: 'warn', captureContent: true });
    await ghost({}, `key ${secrets[0]!}`);
    expect(violationEvents()[0]!.attributes?.['nous.session.invariant.extra.previews']).toEqual([`key ${secrets[0]!}`]);
  });
});
