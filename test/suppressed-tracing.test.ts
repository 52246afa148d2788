// docs/behaviour.md §6.7: inside `suppressTracing`, as in contrib's
// instrumentations, the package reports nothing on any channel (span event,
// log event, counters, warning line, strict's throw), and the implicit log
// still follows the conversation, so the requests after it are checked whole.

import { context, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { CHECKS_METRIC, VIOLATION_METRIC } from '../src/telemetry/semconv';
import { useInstrumentedProvider } from './support/instrumented';
import { captureWarnings } from './support/warnings';

const suite = useInstrumentedProvider({ mode: 'strict' });
const warn = captureWarnings();

type Chat = Array<{ role: 'user' | 'assistant'; content: string }>;

function client() {
  return new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
}

async function send(messages: Chat): Promise<string> {
  const completion = await client().chat.completions.create({ model: 'gpt-test', messages });
  return completion.choices[0]!.message.content ?? '';
}

function suppressed<T>(fn: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(context.active()), fn);
}

function violationEvents(): number {
  return suite.env.otel.spans
    .getFinishedSpans()
    .flatMap((span) => span.events)
    .filter((event) => event.name === 'nous.session.invariant.violation').length;
}

describe('suppressed tracing (contrib convention)', () => {
  it('reports nothing inside suppressTracing, on any channel, and strict does not throw there', async () => {
    const first = `first question ${Math.random()}`;
    const answer = await send([{ role: 'user', content: first }]);
    const invented: Chat = [
      { role: 'user', content: first },
      { role: 'assistant', content: 'an answer the model never gave' },
      { role: 'user', content: 'and then?' },
    ];
    const [checks, violations] = [await suite.env.otel.total(CHECKS_METRIC), await suite.env.otel.total(VIOLATION_METRIC)];

    await expect(suppressed(() => send(invented))).resolves.toEqual(expect.any(String));
    expect(await suite.env.otel.total(CHECKS_METRIC)).toBe(checks);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(violations);
    expect(violationEvents()).toBe(0);
    expect(warn).not.toHaveBeenCalled();

    // Such a request outside it (another invented answer: the suppressed one was followed, so a repeat of it is a retry):
    // every channel reports it, and strict throws before it is sent.
    const inventedAgain: Chat = [invented[0]!, { role: 'assistant', content: 'another answer never given' }, invented[2]!];
    await expect(trace.getTracer('test').startActiveSpan('turn', (span) => send(inventedAgain).finally(() => span.end()))).rejects.toThrow(
      /session invariant violated/,
    );
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(violations + 1);
    expect(violationEvents()).toBe(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(answer).not.toBe('');
  });

  it('the implicit log follows a suppressed turn, so the request continuing it is no violation', async () => {
    const first = `opening ${Math.random()}`;
    const a = await send([{ role: 'user', content: first }]);
    const b = await suppressed(() =>
      send([
        { role: 'user', content: first },
        { role: 'assistant', content: a },
        { role: 'user', content: 'second' },
      ]),
    );
    const violations = await suite.env.otel.total(VIOLATION_METRIC);
    await send([
      { role: 'user', content: first },
      { role: 'assistant', content: a },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: b },
      { role: 'user', content: 'third' },
    ]);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(violations);
    expect(warn).not.toHaveBeenCalled();
  });
});
