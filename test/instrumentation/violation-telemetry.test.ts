// Issue 26 in process, on the real OTel SDK and the real `openai` SDK against
// the loopback provider: the log event beside the span event, the conversation
// id, the redact hook and preview length, and the capture variable's parsing.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionLog, VIOLATION_EVENT, VIOLATION_METRIC } from '../../src/index';
import { captureContentFromEnv } from '../../src/reaction/content-capture-option';
import { BEHAVIOUR_DOCS_URL } from '../../src/telemetry/docs-link';
import { INTERNAL_ERROR_METRIC } from '../../src/telemetry/semconv';
import { ghostRequest, useInstrumentedProvider } from '../support/instrumented';
import { PACKAGE_ROOT } from '../support/run-node';
import { captureWarnings } from '../support/warnings';

const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();

beforeEach(() => suite.env.otel.logs.reset());
afterEach(() => suite.env.instrumentation.setConfig({ mode: 'warn' }));

function client() {
  return new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
}

function chatLog(): SessionLog {
  const log = new SessionLog();
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  return log;
}

/** A request with a user message the log does not hold: extra_message. */
function ghost(log: SessionLog, options: { conversationId?: string; agentName?: string } = {}, text = 'SECRET ghost text') {
  return ghostRequest(suite, log, options, text);
}

const violationEvents = () =>
  suite.env.otel.spans
    .getFinishedSpans()
    .flatMap((span) => span.events.filter((e) => e.name === VIOLATION_EVENT).map((event) => ({ span, event })));

describe('the gen_ai.evaluation.result log event', () => {
  it('is emitted beside the span event, in its span context, with the kind as label and no prompt text', async () => {
    await ghost(chatLog(), { conversationId: 'conv-7', agentName: 'planner' });
    const { span, event } = violationEvents()[0]!;
    expect(event.attributes).toMatchObject({ 'gen_ai.conversation.id': 'conv-7', 'gen_ai.agent.name': 'planner' });
    const records = suite.env.otel.logs.getFinishedLogRecords();
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record.eventName).toBe('gen_ai.evaluation.result');
    expect(record.severityText).toBe('WARN');
    expect(record.instrumentationScope.name).toBe('nous-session-invariant');
    expect(record.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'nous.session.invariant',
      'gen_ai.evaluation.score.label': 'extra_message',
      'gen_ai.conversation.id': 'conv-7',
      'gen_ai.agent.name': 'planner',
      'nous.session.invariant.log': 'bound',
    });
    expect(record.spanContext?.traceId).toBe(span.spanContext().traceId);
    expect(record.spanContext?.spanId).toBe(span.spanContext().spanId);
    expect(JSON.stringify(record.attributes)).not.toMatch(/SECRET/);
    // Never on a counter: one series per conversation would be unbounded.
    for (const point of await suite.env.otel.points(VIOLATION_METRIC))
      expect(point.attributes).not.toHaveProperty('gen_ai.conversation.id');
  });

  it('goes to a LoggerProvider given to the instrumentation instead of the global one', async () => {
    const own = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: own })] });
    suite.env.instrumentation.setLoggerProvider(provider);
    try {
      await ghost(chatLog());
      expect(own.getFinishedLogRecords().map((r) => r.eventName)).toEqual(['gen_ai.evaluation.result']);
      expect(suite.env.otel.logs.getFinishedLogRecords()).toEqual([]);
    } finally {
      await provider.shutdown();
    }
  });
});

describe('gen_ai.conversation.id of a bound session', () => {
  it('is the log’s own random id when withSession names none, the same for every request on that log', async () => {
    const log = chatLog();
    await ghost(log);
    await ghost(log);
    await ghost(chatLog());
    const ids = violationEvents().map(({ event }) => event.attributes?.['gen_ai.conversation.id']);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });
});

describe('gen_ai.conversation.id of the implicit log', () => {
  /** A conversation of three turns, then two requests that each drop a message it already had. */
  async function conversationWithTwoDrops(topic: string) {
    type Msg = { role: 'user' | 'assistant'; content: string };
    const send = async (messages: Msg[]): Promise<Msg> => {
      const reply = (await client().chat.completions.create({ model: 'gpt-test', messages })).choices[0]!.message;
      return { role: 'assistant', content: reply.content ?? '' };
    };
    const u1: Msg = { role: 'user', content: `${topic} one` };
    const u2: Msg = { role: 'user', content: `${topic} two` };
    const u3: Msg = { role: 'user', content: `${topic} three` };
    const r1 = await send([u1]);
    const r2 = await send([u1, r1, u2]);
    await send([u1, u2]); // drops r1
    const r3 = await send([u1, r1, u2, r2, u3]);
    await send([u1, r1, u3, r3]); // drops u2 and r2
  }

  it('is the same for every violation in one conversation, another for another conversation, and never text', async () => {
    await conversationWithTwoDrops('SECRET-A');
    await conversationWithTwoDrops('SECRET-B');
    const ids = violationEvents().map(({ event }) => String(event.attributes?.['gen_ai.conversation.id']));
    expect(ids).toHaveLength(4);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[3]).toBe(ids[2]);
    expect(ids[2]).not.toBe(ids[0]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}\.\d+$/);
    expect(violationEvents().map(({ event }) => event.attributes?.['nous.session.invariant.log'])).toEqual(Array(4).fill('implicit'));
  });
});

describe('previews: the redact hook and the preview length', () => {
  it('pass every preview through redact, then cut it to previewLength, on the event and the line', async () => {
    suite.env.instrumentation.setConfig({
      mode: 'warn',
      captureContent: true,
      redact: (t) => t.replace(/SECRET/g, '[x]'),
      previewLength: 8,
    });
    await ghost(chatLog());
    const { event } = violationEvents()[0]!;
    expect(event.attributes?.['nous.session.invariant.extra.previews']).toEqual(['[x] ghos']);
    expect(warn.mock.calls[0]![0]).toContain('previews: extra ["[x] ghos"]');
    expect(JSON.stringify(suite.env.otel.logs.getFinishedLogRecords().map((r) => r.attributes))).not.toMatch(/SECRET|ghost/);
  });

  it('a redact hook that throws drops the preview and counts an internal error; no text gets out', async () => {
    suite.env.instrumentation.setConfig({
      mode: 'warn',
      captureContent: true,
      redact: () => {
        throw new Error('redactor down');
      },
    });
    await ghost(chatLog());
    const { event } = violationEvents()[0]!;
    expect(event.attributes?.['nous.session.invariant.extra.previews']).toEqual(['']);
    const errors = await suite.env.otel.points(INTERNAL_ERROR_METRIC);
    expect(errors.filter((p) => p.attributes['nous.session.invariant.where'] === 'the redact hook').map((p) => p.value)).toEqual([1]);
    expect(warn.mock.calls.map((c) => String(c[0])).join('\n')).not.toMatch(/SECRET/);
  });

  it('with content capture off, the hook is never called', async () => {
    const redact = vi.fn((t: string) => t);
    suite.env.instrumentation.setConfig({ mode: 'warn', captureContent: false, redact });
    await ghost(chatLog());
    expect(redact).not.toHaveBeenCalled();
    expect(violationEvents()[0]!.event.attributes).not.toHaveProperty('nous.session.invariant.extra.previews');
  });
});

describe('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, parsed as contrib parses it', () => {
  it('is true or false in any case; anything else is warned about once and means off', () => {
    expect(captureContentFromEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'True' })).toBe(true);
    expect(captureContentFromEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: ' false ' })).toBe(false);
    expect(captureContentFromEnv({})).toBe(false);
    for (const value of ['1', 'on', '1'])
      expect(captureContentFromEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value })).toBe(false);
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
      'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="1" is not "true" or "false"; it is ignored and content capture stays off',
      'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="on" is not "true" or "false"; it is ignored and content capture stays off',
    ]);
  });
});

describe('the docs link in the line', () => {
  it('points at docs/behaviour.md on the repository package.json names, at a heading per violation kind', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { homepage: string };
    expect(BEHAVIOUR_DOCS_URL).toBe(`${manifest.homepage.replace(/#readme$/, '')}/blob/main/docs/behaviour.md`);
    const headings = readFileSync(join(PACKAGE_ROOT, 'docs/behaviour.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('#'));
    for (const kind of ['missing_message', 'extra_message', 'order', 'orphaned_tool_result', 'invalid_request'])
      expect(headings).toContain(`#### \`${kind}\``);
  });
});
