import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECKS_METRIC, INTERNAL_ERROR_METRIC } from '../src/telemetry/semconv';
import {
  SessionInvariantViolation,
  SessionLog,
  VIOLATION_EVENT,
  VIOLATION_METRIC,
  check,
  setLogger,
  verify,
  type Message,
} from '../src/index';
import { resetWarnings } from '../src/warnings';
import { renderingsOf } from './support/leaks';
import { registerOtel, type OtelHarness } from './support/otel';
import { exampleLog, user } from './support/transcripts';

const warn = vi.fn();
let otel: OtelHarness;

beforeEach(() => {
  resetWarnings();
  warn.mockReset();
  setLogger({ warn });
  otel = registerOtel();
});
afterEach(async () => {
  setLogger(null);
  vi.unstubAllEnvs();
  await otel.teardown();
});

function ghostRequest(log: SessionLog): Message[] {
  return [...log.deriveMessages(), user('ghost: secret prompt text')];
}

function inSpan<T>(fn: () => T): T {
  return trace.getTracer('test').startActiveSpan('chat gpt-test', (span) => {
    try {
      return fn();
    } finally {
      span.end();
    }
  });
}

function thrownBy(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

function leaveTestEnvironment(): void {
  vi.stubEnv('VITEST', '');
  vi.stubEnv('NODE_TEST_CONTEXT', '');
  vi.stubEnv('JEST_WORKER_ID', '');
  vi.stubEnv('NODE_ENV', 'production');
}

describe('verify: modes', () => {
  it('off returns before any work: it does not even read the log', () => {
    const touched: PropertyKey[] = [];
    const spy = new Proxy(exampleLog(), {
      get(target, key, receiver) {
        touched.push(key);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    verify(spy, [], { mode: 'off' });
    expect(touched).toEqual([]);
  });

  it('off from NOUS_SESSION_INVARIANT skips too', async () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'off');
    verify(exampleLog(), []);
    expect(await otel.points(CHECKS_METRIC)).toEqual([]);
  });

  it.each(['off', 'warn', 'strict'] as const)('no session in scope is a no-op in %s mode', async (mode) => {
    expect(() => verify(undefined, [user('anything')], { mode })).not.toThrow();
    expect(await otel.points(VIOLATION_METRIC)).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('a passing request records a check and nothing else', async () => {
    const log = exampleLog();
    inSpan(() => verify(log, log.deriveMessages(), { mode: 'strict' }));
    expect(await otel.points(CHECKS_METRIC)).toMatchObject([{ value: 1 }]);
    expect(await otel.points(VIOLATION_METRIC)).toEqual([]);
    expect(otel.spans.getFinishedSpans()[0]!.events).toEqual([]);
  });

  it('warn records the violation, logs a warning and never throws', async () => {
    const log = exampleLog();
    expect(() => inSpan(() => verify(log, ghostRequest(log), { mode: 'warn', agentName: 'planner' }))).not.toThrow();
    expect(otel.spans.getFinishedSpans()[0]!.events.map((e) => e.name)).toEqual([VIOLATION_EVENT]);
    expect(await otel.points(VIOLATION_METRIC)).toMatchObject([{ value: 1 }]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/extra_message: .* at position 5 \(0-based/);
    expect(warn.mock.calls[0]![0]).not.toMatch(/secret prompt text/);
  });

  it('strict records, then throws SessionInvariantViolation with the details, in a test environment', async () => {
    const log = exampleLog();
    let thrown: unknown;
    inSpan(() => {
      try {
        verify(log, ghostRequest(log), { mode: 'strict' });
      } catch (error) {
        thrown = error;
      }
    });
    expect(thrown).toBeInstanceOf(SessionInvariantViolation);
    expect((thrown as SessionInvariantViolation).details).toMatchObject({ kind: 'extra_message', index: 5 });
    expect(otel.spans.getFinishedSpans()[0]!.events).toHaveLength(1);
    expect(await otel.points(VIOLATION_METRIC)).toMatchObject([
      { value: 1, attributes: { 'nous.session.invariant.mode': 'strict', 'nous.session.invariant.log': 'bound' } },
    ]);
  });

  it('strict with content capture off throws an error that carries no preview, in details or anywhere it is printed', () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', '');
    const log = new SessionLog();
    log.append('user_message', { content: 'logged prompt text' });
    // A rewrite puts request text in `extra` and log text in `missing`: both sides are looked for.
    const thrown = thrownBy(() => verify(log, [user('secret prompt text')], { mode: 'strict' }));
    expect(thrown).toBeInstanceOf(SessionInvariantViolation);
    expect((thrown as SessionInvariantViolation).details).toMatchObject({
      kind: 'missing_message',
      extra: [{ role: 'user', preview: null }],
      missing: [{ role: 'user', preview: null }],
    });
    for (const rendering of renderingsOf(thrown)) {
      expect(rendering).not.toContain('secret prompt text');
      expect(rendering).not.toContain('logged prompt text');
    }
  });

  it('strict with content capture on keeps the previews in details, as on the span event', () => {
    const log = exampleLog();
    const thrown = thrownBy(() => verify(log, ghostRequest(log), { mode: 'strict', captureMessageContent: true }));
    expect((thrown as SessionInvariantViolation).details).toMatchObject({ extra: [{ preview: 'ghost: secret prompt text' }] });
  });

  it("check, called directly, returns the previews: the caller's own data, in its own process", () => {
    const log = exampleLog();
    expect(check(log, ghostRequest(log))).toMatchObject({ ok: false, violation: { extra: [{ preview: 'ghost: secret prompt text' }] } });
  });

  it('strict outside a test environment behaves as warn and says once why', async () => {
    leaveTestEnvironment();
    const log = exampleLog();
    expect(() => verify(log, ghostRequest(log), { mode: 'strict' })).not.toThrow();
    expect(() => verify(log, ghostRequest(log), { mode: 'strict' })).not.toThrow();
    const why = warn.mock.calls.filter(([m]) => /only throws in a test environment/.test(m as string));
    expect(why).toHaveLength(1);
    expect(await otel.points(VIOLATION_METRIC)).toMatchObject([
      { value: 2, attributes: { 'nous.session.invariant.mode': 'warn', 'nous.session.invariant.log': 'bound' } },
    ]);
  });

  it('strict from NODE_ENV=test throws even without a runner marker', () => {
    leaveTestEnvironment();
    vi.stubEnv('NODE_ENV', 'test');
    const log = exampleLog();
    expect(() => verify(log, ghostRequest(log), { mode: 'strict' })).toThrow(SessionInvariantViolation);
  });

  it('an invalid mode behaves as warn', () => {
    const log = exampleLog();
    expect(() => verify(log, ghostRequest(log), { mode: 'panic' as never })).not.toThrow();
    expect(warn.mock.calls.some(([m]) => /"panic" is not a mode/.test(m as string))).toBe(true);
  });
});

describe('verify: telemetry (docs/behaviour.md §6)', () => {
  it('names the conversation: the conversationId given, else the log’s own id, the same on every call', () => {
    const log = exampleLog();
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn' }));
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn' }));
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn', conversationId: 'app-conv-1' }));
    const ids = otel.spans.getFinishedSpans().map((s) => s.events[0]!.attributes!['gen_ai.conversation.id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).toBe('app-conv-1');
    const records = otel.logs.getFinishedLogRecords();
    expect(records.map((r) => r.attributes['gen_ai.conversation.id'])).toEqual(ids);
  });

  it('puts the details on the span event, without previews by default', () => {
    const log = exampleLog();
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn' }));
    const [event] = otel.spans.getFinishedSpans()[0]!.events;
    expect(event!.attributes).toEqual({
      'nous.session.invariant.kind': 'extra_message',
      'nous.session.invariant.mode': 'warn',
      'nous.session.invariant.log': 'bound',
      'gen_ai.conversation.id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'nous.session.invariant.index': 5,
      'nous.session.invariant.request_length': 6,
      'nous.session.invariant.log_length': 5,
      'nous.session.invariant.extra.count': 1,
      'nous.session.invariant.extra.roles': ['user'],
      'nous.session.invariant.missing.count': 0,
      'nous.session.invariant.missing.roles': [],
      'nous.session.invariant.matching.before_roles': ['tool', 'assistant'],
      'nous.session.invariant.matching.request_after_roles': [],
      'nous.session.invariant.matching.log_after_roles': [],
    });
    expect(JSON.stringify(event)).not.toMatch(/secret prompt text/);
  });

  it('adds previews when content capture is on in config', () => {
    const log = exampleLog();
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn', captureMessageContent: true }));
    const [event] = otel.spans.getFinishedSpans()[0]!.events;
    expect(event!.attributes).toMatchObject({
      'nous.session.invariant.extra.previews': ['ghost: secret prompt text'],
      'nous.session.invariant.missing.previews': [],
    });
  });

  it.each([
    [{ captureContent: true }, true],
    [{ captureMessageContent: false, captureContent: true }, false],
    [{ captureMessageContent: true, captureContent: false }, true],
  ])('reads captureContent as the deprecated alias of captureMessageContent, which wins: %j gives previews %s', (option, previews) => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', String(!previews));
    const log = exampleLog();
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn', ...option }));
    const [event] = otel.spans.getFinishedSpans()[0]!.events;
    expect(event!.attributes!['nous.session.invariant.extra.previews']).toEqual(previews ? ['ghost: secret prompt text'] : undefined);
  });

  it('adds previews when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    const log = exampleLog();
    inSpan(() => verify(log, ghostRequest(log), { mode: 'warn' }));
    const [event] = otel.spans.getFinishedSpans()[0]!.events;
    expect(event!.attributes!['nous.session.invariant.extra.previews']).toEqual(['ghost: secret prompt text']);
  });

  it('puts the tool call id on an orphaned_tool_result event', () => {
    const log = new SessionLog();
    log.append('tool_result', { content: 'r', toolCallId: 'c9' });
    inSpan(() => verify(log, log.deriveMessages(), { mode: 'warn' }));
    const [event] = otel.spans.getFinishedSpans()[0]!.events;
    expect(event!.attributes).toEqual({
      'nous.session.invariant.kind': 'orphaned_tool_result',
      'nous.session.invariant.mode': 'warn',
      'nous.session.invariant.log': 'bound',
      'gen_ai.conversation.id': expect.any(String),
      'nous.session.invariant.tool_call_id': 'c9',
    });
  });

  it('counts +1 per violation with kind, mode, agent and provider', async () => {
    const log = exampleLog();
    verify(log, ghostRequest(log), { mode: 'warn', agentName: 'planner', provider: 'openai' });
    verify(log, [], { mode: 'warn', agentName: 'planner', provider: 'openai' });
    verify(log, ghostRequest(log), { mode: 'warn', agentName: 'planner', provider: 'openai' });
    const metric = await otel.metric(VIOLATION_METRIC);
    expect(metric?.descriptor.unit).toBe('{violation}');
    const byKind = Object.fromEntries(
      (metric?.dataPoints ?? []).map((p) => [p.attributes['nous.session.invariant.kind'], { value: p.value, attributes: p.attributes }]),
    );
    expect(byKind).toEqual({
      extra_message: {
        value: 2,
        attributes: {
          'nous.session.invariant.kind': 'extra_message',
          'nous.session.invariant.mode': 'warn',
          'nous.session.invariant.log': 'bound',
          'gen_ai.agent.name': 'planner',
          'gen_ai.provider.name': 'openai',
        },
      },
      missing_message: {
        value: 1,
        attributes: {
          'nous.session.invariant.kind': 'missing_message',
          'nous.session.invariant.mode': 'warn',
          'nous.session.invariant.log': 'bound',
          'gen_ai.agent.name': 'planner',
          'gen_ai.provider.name': 'openai',
        },
      },
    });
    expect(await otel.points(CHECKS_METRIC)).toMatchObject([{ value: 3 }]);
  });

  it('with no active span, still counts', async () => {
    const log = exampleLog();
    verify(log, ghostRequest(log), { mode: 'warn' });
    expect(await otel.points(VIOLATION_METRIC)).toMatchObject([{ value: 1 }]);
  });

  it('is a no-op with no SDK registered', async () => {
    await otel.teardown();
    const log = exampleLog();
    expect(() => verify(log, ghostRequest(log), { mode: 'warn' })).not.toThrow();
    otel = registerOtel();
  });
});

describe('verify: its own failures', () => {
  it('a broken logger or span never reaches the caller; the failure is counted and logged once', async () => {
    const log = exampleLog();
    const brokenSpan = trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '1'.repeat(16), traceFlags: 1 });
    brokenSpan.addEvent = () => {
      throw new Error('exporter exploded');
    };
    expect(() => verify(log, ghostRequest(log), { mode: 'warn', span: brokenSpan })).not.toThrow();
    expect(() => verify(log, ghostRequest(log), { mode: 'warn', span: brokenSpan })).not.toThrow();
    expect(await otel.points(INTERNAL_ERROR_METRIC)).toMatchObject([{ value: 2 }]);
    expect(warn.mock.calls.filter(([m]) => /internal error/.test(m as string))).toHaveLength(1);
  });

  it('a logger that throws is ignored', () => {
    setLogger({
      warn() {
        throw new Error('logger down');
      },
    });
    const log = exampleLog();
    expect(() => verify(log, ghostRequest(log), { mode: 'warn' })).not.toThrow();
  });

  it('a malformed request is reported, not thrown, in warn mode', async () => {
    const log = exampleLog();
    expect(() => verify(log, null as never, { mode: 'warn' })).not.toThrow();
    expect(await otel.points(VIOLATION_METRIC)).toMatchObject([{ attributes: { 'nous.session.invariant.kind': 'invalid_request' } }]);
  });
});
