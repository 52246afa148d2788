// Issue 26, as a new user meets it: a plain `openai` agent that drops an old
// tool result, only `--require nous-session-invariant/register`. One actionable
// line per violation, the conversation and agent on the event, the
// `gen_ai.evaluation.result` log event beside the span event, an INTERNAL
// check span, and no prompt text anywhere.

import { describe, expect, it } from 'vitest';
import { useRegisterHarness } from './support/register-harness';
import { runNode } from './support/run-node';

const h = useRegisterHarness();
const dropApp = ['--require', 'nous-session-invariant/register', 'test/fixtures/implicit-drop-app.cjs'];
const boundApp = ['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'];
const DOCS = 'https://github.com/nous-session-invariant/nous-session-invariant/blob/main/docs/behaviour.md';

describe('a dropped tool result under register, exported over OTLP', () => {
  it('carries the conversation on the span event and the log event, which share the span; counters carry no conversation', async () => {
    const run = await runNode(dropApp, h.otlpEnv());
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.code).toBe(0);

    const events = h.receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.attributes).toMatchObject({
      'nous.session.invariant.kind': 'missing_message',
      'nous.session.invariant.log': 'implicit',
      'nous.session.invariant.index': 3,
      'nous.session.invariant.missing.roles': ['tool'],
    });
    // The tool result's identifiers, aligned with its role: the viewer draws them in its row.
    expect(event.attributes['nous.session.invariant.missing.tool_names']).toEqual(['get_weather']);
    expect(event.attributes['nous.session.invariant.missing.tool_call_ids']).toEqual([expect.stringMatching(/^call_\d+$/)]);
    expect(event.attributes).not.toHaveProperty('nous.session.invariant.extra.tool_call_ids');
    // The roles of the matching rows beside the drop, which the viewer draws: roles only.
    expect(event.attributes).toMatchObject({
      'nous.session.invariant.matching.before_roles': ['user', 'assistant'],
      'nous.session.invariant.matching.request_after_roles': ['assistant', 'user', 'assistant'],
      'nous.session.invariant.matching.log_after_roles': ['assistant', 'user', 'assistant'],
    });
    const conversationId = event.attributes['gen_ai.conversation.id'];
    expect(conversationId).toMatch(/^[0-9a-f-]{36}\.\d+$/);

    // The package's own span, made because the openai SDK has none here: INTERNAL, named for the check.
    expect(event.span).toBe('nous.session.invariant check');
    expect(event.kind).toBe(1); // INTERNAL
    expect(event.spanAttributes['gen_ai.operation.name']).toBeUndefined();
    expect(event.spanAttributes['gen_ai.conversation.id']).toBe(conversationId);

    const records = h.receiver.logRecords().filter((r) => r.eventName === 'gen_ai.evaluation.result');
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'nous.session.invariant',
      'gen_ai.evaluation.score.label': 'missing_message',
      'gen_ai.conversation.id': conversationId,
      'gen_ai.provider.name': 'openai',
      'nous.session.invariant.log': 'implicit',
    });
    expect(record.attributes['gen_ai.evaluation.explanation']).toMatch(/^missing_message: the request left out a tool result/);
    // The log record alone draws the same picture: the same roles as the span event.
    for (const roles of ['before_roles', 'request_after_roles', 'log_after_roles']) {
      const key = `nous.session.invariant.matching.${roles}`;
      expect(record.attributes[key]).toEqual(event.attributes[key]);
    }
    expect(record.scope).toBe('nous-session-invariant');
    expect([record.traceId, record.spanId]).toEqual([event.traceId, event.spanId]);

    for (const metric of ['nous.session.invariant.violation', 'nous.session.invariant.checks']) {
      const points = h.receiver.points(metric);
      expect(points.length).toBeGreaterThan(0);
      for (const point of points) expect(point.attributes).not.toHaveProperty('gen_ai.conversation.id');
    }
    expect(h.receiver.raw.join('\n')).not.toMatch(/SECRET/);
  });

  it('prints one actionable line: what, where (0-based, role, call id, tool), against what, trace and span, the fix, the docs', async () => {
    const run = await runNode(dropApp, h.otlpEnv());
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.includes('session invariant violation'));
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    const [event] = h.receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
    expect(line).toContain('[nous-session-invariant] session invariant violation: missing_message: the request left out a tool result');
    expect(line).toMatch(/a tool result \(call id call_\d+, name get_weather\) the model had already been sent/);
    expect(line).toContain('at position 3 (0-based');
    expect(line).toContain('the conversation so far');
    expect(line).toContain(`conversation ${String(event!.attributes['gen_ai.conversation.id'])}`);
    expect(line).toContain(`trace ${event!.traceId} span ${event!.spanId}`);
    expect(line).toMatch(/Fix: usually history trimming/);
    expect(line).toContain(`See ${DOCS}#missing_message`);
    expect(line).not.toMatch(/SECRET/);
  });

  it('with content capture on, the line carries the previews; an invalid capture value is warned about and ignored', async () => {
    const on = await runNode(dropApp, h.otlpEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' }));
    expect(on.code, on.stderr).toBe(0);
    expect(on.stderr).toMatch(/previews: extra \[\], missing \["SECRET-TOOL-RESULT"\]/);

    const odd = await runNode(dropApp, h.otlpEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '1' }));
    expect(odd.code, odd.stderr).toBe(0);
    expect(odd.stderr.match(/OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="1" is not "true" or "false"/g)).toHaveLength(1);
    expect(odd.stderr).not.toMatch(/SECRET/);
  });
});

describe('a bound session under register', () => {
  it('puts the agent and the log id on the span event and the log event, never on the counters', async () => {
    const run = await runNode(boundApp, h.otlpEnv());
    expect(run.code, run.stderr).toBe(0);
    const [event] = h.receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
    expect(event!.attributes['gen_ai.agent.name']).toBe('cjs-agent');
    expect(event!.attributes['gen_ai.conversation.id']).toMatch(/^[0-9a-f-]{36}$/);
    const [record] = h.receiver.logRecords().filter((r) => r.eventName === 'gen_ai.evaluation.result');
    expect(record!.attributes).toMatchObject({
      'gen_ai.agent.name': 'cjs-agent',
      'gen_ai.conversation.id': event!.attributes['gen_ai.conversation.id'],
      'gen_ai.evaluation.score.label': 'extra_message',
      'nous.session.invariant.log': 'bound',
    });
    expect([record!.traceId, record!.spanId]).toEqual([event!.traceId, event!.spanId]);
    for (const point of h.receiver.points('nous.session.invariant.violation')) {
      expect(Object.keys(point.attributes).sort()).toEqual([
        'gen_ai.agent.name',
        'gen_ai.provider.name',
        'nous.session.invariant.kind',
        'nous.session.invariant.log',
        'nous.session.invariant.mode',
      ]);
    }
  });

  it('prints each violation once by default: the line, no span-event dump, no log-record dump; counters on request', async () => {
    const run = await runNode(boundApp, { FAKE_PROVIDER_URL: h.provider.openaiBaseURL, NOUS_SESSION_INVARIANT_PRINT_COUNTERS: 'true' });
    expect(run.code, run.stderr).toBe(0);
    // The warning line and the counter's data point; nothing else names the violation.
    expect(run.stderr.split('\n').filter((l) => l.includes('extra_message'))).toHaveLength(2);
    expect(run.stderr.match(/session invariant violation: extra_message/g)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/event nous\.session\.invariant\.violation|gen_ai\.evaluation\.result/);
    expect(run.stderr).toMatch(/counter nous\.session\.invariant\.violation .* = 1/);
    expect(run.stderr).not.toMatch(/SECRET/);
  });
});
