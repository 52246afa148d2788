import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { SessionInvariantViolation, VIOLATION_METRIC, withSession } from '../../src/index';
import { toAnthropic } from '../../src/adapters';
import { useInstrumentedProvider } from '../support/instrumented';
import { weatherToolLog } from '../support/transcripts';

const suite = useInstrumentedProvider({ mode: 'warn' });

function client(maxRetries = 0) {
  return new suite.env.anthropic.Anthropic({ apiKey: 'test-key', baseURL: suite.server.anthropicBaseURL, maxRetries });
}

describe('anthropic messages', () => {
  it('create: system is the overlay slot, tool_use and tool_result reconstruct the fold', async () => {
    const log = weatherToolLog();
    const before = await suite.env.otel.total(VIOLATION_METRIC);
    const message = await withSession(log, () =>
      client().messages.create({ model: 'claude-test', max_tokens: 64, ...toAnthropic(log.deriveMessages()) }),
    );
    expect((message as { content: Array<{ text: string }> }).content[0]!.text).toMatch(/^answer/);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(before);
  });

  it('a dropped tool result is missing_message, on the span of the request', async () => {
    const log = weatherToolLog();
    const { system, messages } = toAnthropic(log.deriveMessages());
    await trace.getTracer('app').startActiveSpan('agent step', async (span) => {
      await withSession(log, () =>
        client().messages.create({ model: 'claude-test', max_tokens: 64, system, messages: messages.slice(0, 2) }),
      );
      span.end();
    });
    const events = suite.env.otel.spans
      .getFinishedSpans()
      .flatMap((s) => s.events.map((e) => ({ span: s.name, kind: e.attributes?.['nous.session.invariant.kind'] })));
    expect(events).toHaveLength(1);
    expect(events[0]!.kind).toBe('missing_message');
    // The SDK's own call span (its built-in OpenTelemetry) is the span of the request.
    expect(events[0]!.span).toBe('anthropic.messages.create');
    expect(await suite.env.otel.total(VIOLATION_METRIC, 'missing_message')).toBeGreaterThanOrEqual(1);
  });

  it('does not alter the request: a tool_result block (which carries no name) reaches the server as built, bound or not', async () => {
    const log = weatherToolLog();
    const params = { model: 'claude-test', max_tokens: 64, ...toAnthropic(log.deriveMessages()) };
    const sent = JSON.parse(JSON.stringify(params)) as unknown;
    await withSession(log, () => client().messages.create(params));
    expect(suite.server.received.at(-1)!.body).toEqual(sent);
    await client().messages.create(params); // the implicit conversation log names tool results too
    expect(suite.server.received.at(-1)!.body).toEqual(sent);
    expect(JSON.stringify(suite.server.received.at(-1)!.body)).not.toContain('"name":"get_weather","content"');
    expect(params).toEqual(sent);
  });

  it('stream() still works and is checked', async () => {
    const log = weatherToolLog();
    const before = await suite.env.otel.total(VIOLATION_METRIC, 'extra_message');
    const request = toAnthropic(log.deriveMessages());
    const stream = withSession(log, () =>
      client().messages.stream({
        model: 'claude-test',
        max_tokens: 64,
        ...request,
        messages: [...request.messages, { role: 'user', content: 'ghost' }],
      }),
    );
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text' });
    expect(await suite.env.otel.total(VIOLATION_METRIC, 'extra_message')).toBe(before + 1);
  });

  it('create({ stream: true }) still works and is checked', async () => {
    const log = weatherToolLog();
    const request = toAnthropic(log.deriveMessages());
    const stream = await withSession(log, () =>
      client().messages.create({ model: 'claude-test', max_tokens: 64, stream: true, ...request }),
    );
    const types: string[] = [];
    for await (const event of stream as unknown as AsyncIterable<{ type: string }>) types.push(event.type);
    expect(types.at(-1)).toBe('message_stop');
  });

  it('strict mode throws before the server receives the request', async () => {
    const sent = suite.server.received.length;
    const call = withSession(
      weatherToolLog(),
      () => client().messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'ghost' }] }),
      {
        mode: 'strict',
      },
    );
    await expect(call).rejects.toBeInstanceOf(SessionInvariantViolation);
    expect(suite.server.received.length).toBe(sent);
  });

  it('a retried attempt counts once', async () => {
    const before = await suite.env.otel.total(VIOLATION_METRIC);
    const sent = suite.server.received.length;
    suite.server.failNext(1);
    await withSession(weatherToolLog(), () =>
      client(2).messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'ghost' }] }),
    );
    expect(suite.server.received.length - sent).toBe(2);
    expect((await suite.env.otel.total(VIOLATION_METRIC)) - before).toBe(1);
  });

  it('does not check count_tokens', async () => {
    const before = await suite.env.otel.total('nous.session.invariant.checks');
    await withSession(weatherToolLog(), () =>
      client()
        .messages.countTokens({ model: 'claude-test', messages: [{ role: 'user', content: 'x' }] })
        .catch(() => undefined),
    );
    expect(await suite.env.otel.total('nous.session.invariant.checks')).toBe(before);
  });
});

describe('anthropic message threads (the server holds the turns), then the whole history re-sent', () => {
  function inUserSpan<T>(fn: () => Promise<T>): Promise<T> {
    return trace.getTracer('app').startActiveSpan('agent step', async (span) => {
      try {
        return await fn();
      } finally {
        span.end();
      }
    });
  }
  /** A thread of two turns: the first creates it with the whole history, the second continues it with what is new. */
  async function twoTurns(topic: string) {
    const thread = client().beta.messages.thread({ model: 'claude-test', max_tokens: 64, system: 'You are brief.' });
    await thread.send({ role: 'user', content: `Hello (${topic})` });
    await thread.send({ role: 'user', content: 'How are you?' });
    expect(suite.server.received.at(-1)!.body.thread).toMatchObject({ type: 'continue' });
    return thread;
  }

  it('thread.fork() sends the whole history under a new thread: a continuation, silent', async () => {
    const before = await suite.env.otel.total(VIOLATION_METRIC);
    await inUserSpan(async () => {
      const thread = await twoTurns('fork');
      const fork = thread.fork();
      await fork.send({ role: 'user', content: 'And tomorrow?' });
      const sent = suite.server.received.at(-1)!.body;
      expect(sent.thread).toEqual({ type: 'create' });
      expect(sent.messages).toHaveLength(5);
      await fork.send({ role: 'user', content: 'Thanks' });
    });
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(before);
  });

  it("the SDK's own replay after thread_not_found re-sends the whole history: a continuation, silent", async () => {
    const before = await suite.env.otel.total(VIOLATION_METRIC);
    await inUserSpan(async () => {
      const thread = await twoTurns('replay');
      suite.server.loseThreadNext();
      await thread.send({ role: 'user', content: 'And tomorrow?' });
      const [lost, replay] = suite.server.received.slice(-2);
      expect(lost!.body.thread).toMatchObject({ type: 'continue' });
      expect(replay!.body.thread).toEqual({ type: 'create' });
      expect(replay!.body.messages).toHaveLength(5);
    });
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(before);
  });

  it('a new thread over the history with a reply the server held dropped, or edited, is missing_message, once each', async () => {
    const before = await suite.env.otel.total(VIOLATION_METRIC, 'missing_message');
    const all = await suite.env.otel.total(VIOLATION_METRIC);
    await inUserSpan(async () => {
      const thread = await twoTurns('dropped');
      const history = thread.messages;
      expect(history).toHaveLength(4);
      const dropped = [...history.slice(0, 3), { role: 'user' as const, content: 'And tomorrow?' }]; // the last reply left out
      await client().beta.messages.thread({ model: 'claude-test', max_tokens: 64, system: 'You are brief.', messages: dropped }).send();
    });
    expect(await suite.env.otel.total(VIOLATION_METRIC, 'missing_message')).toBe(before + 1);
    await inUserSpan(async () => {
      const thread = await twoTurns('edited');
      const history = thread.messages;
      const edited = [
        ...history.slice(0, 3),
        { role: 'assistant' as const, content: 'I am a lawyer.' },
        { role: 'user' as const, content: 'Really?' },
      ];
      await client().beta.messages.thread({ model: 'claude-test', max_tokens: 64, system: 'You are brief.', messages: edited }).send();
    });
    expect(await suite.env.otel.total(VIOLATION_METRIC, 'missing_message')).toBe(before + 2);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(all + 2);
  });
});
