import { trace } from '@opentelemetry/api';
import { describe, expect, it, vi } from 'vitest';
import { CHECKS_METRIC, INTERNAL_ERROR_METRIC } from '../../src/telemetry/semconv';
import { SessionInvariantViolation, SessionLog, VIOLATION_EVENT, VIOLATION_METRIC, withSession } from '../../src/index';
import { toOpenAIChat, toOpenAIResponses } from '../../src/adapters';
import { useInstrumentedProvider } from '../support/instrumented';
import { renderingsOf } from '../support/leaks';
import { captureWarnings } from '../support/warnings';

const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();

function client(options: { maxRetries?: number } = {}) {
  return new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: options.maxRetries ?? 0 });
}

function weatherLog(): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'You are a weather bot.' });
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  log.append('assistant_message', { content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }] });
  log.append('tool_result', { content: '{"rain":true}', toolCallId: 'call_1', name: 'get_weather' });
  return log;
}

async function violationPoints() {
  return suite.env.otel.points(VIOLATION_METRIC);
}

function inUserSpan<T>(fn: () => Promise<T>): Promise<T> {
  return trace.getTracer('app').startActiveSpan('agent step', async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

describe('openai chat completions', () => {
  it('a request built from the fold passes: one check, no violation', async () => {
    const log = weatherLog();
    const before = await suite.env.otel.total(CHECKS_METRIC);
    const completion = await withSession(log, () =>
      client().chat.completions.create({ model: 'gpt-test', messages: toOpenAIChat(log.deriveMessages()) }),
    );
    expect(completion.choices[0]!.message.content).toMatch(/^answer/);
    const after = await suite.env.otel.total(CHECKS_METRIC);
    expect(after - before).toBe(1);
    expect(await violationPoints()).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it.each([
    ['extra_message', (ms: ReturnType<typeof toOpenAIChat>) => [...ms, { role: 'user' as const, content: 'ghost' }]],
    ['missing_message', (ms: ReturnType<typeof toOpenAIChat>) => ms.filter((m) => m.role !== 'tool')],
    ['order', (ms: ReturnType<typeof toOpenAIChat>) => [ms[0]!, ms[2]!, ms[1]!, ms[3]!]],
  ])('%s lands as a span event on the active span and on the counter', async (kind, mutate) => {
    const log = weatherLog();
    await inUserSpan(() =>
      withSession(
        log,
        () => client().chat.completions.create({ model: 'gpt-test', messages: mutate(toOpenAIChat(log.deriveMessages())) }),
        {
          agentName: 'weather',
        },
      ),
    );
    const span = suite.env.otel.spans.getFinishedSpans().find((s) => s.name === 'agent step')!;
    expect(span.events.map((e) => [e.name, e.attributes?.['nous.session.invariant.kind']])).toEqual([[VIOLATION_EVENT, kind]]);
    const points = await violationPoints();
    expect(points.find((p) => p.attributes['nous.session.invariant.kind'] === kind)).toMatchObject({
      attributes: { 'nous.session.invariant.mode': 'warn', 'gen_ai.agent.name': 'weather', 'gen_ai.provider.name': 'openai' },
    });
  });

  it('an orphaned tool result is reported', async () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'hi' });
    log.append('tool_result', { content: 'r', toolCallId: 'call_9' });
    await inUserSpan(() =>
      withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages: toOpenAIChat(log.deriveMessages()) })),
    );
    const span = suite.env.otel.spans.getFinishedSpans().find((s) => s.name === 'agent step')!;
    expect(span.events[0]!.attributes).toMatchObject({
      'nous.session.invariant.kind': 'orphaned_tool_result',
      'nous.session.invariant.tool_call_id': 'call_9',
    });
  });

  it('with no active span, makes an INTERNAL check span for the violation, not one that passes for a model call', async () => {
    const log = weatherLog();
    await withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'ghost' }] }), {
      agentName: 'planner',
      conversationId: 'conv-42',
    });
    const span = suite.env.otel.spans.getFinishedSpans().find((s) => s.name === 'nous.session.invariant check')!;
    expect(span).toBeDefined();
    expect(span.kind).toBe(0); // INTERNAL
    expect(span.attributes).toEqual({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.agent.name': 'planner',
      'gen_ai.conversation.id': 'conv-42',
    });
    expect(span.events.map((e) => e.name)).toEqual([VIOLATION_EVENT]);
    expect(suite.env.otel.spans.getFinishedSpans().some((s) => s.name.startsWith('chat '))).toBe(false);
  });

  /** Checked requests so far, counted against one kind of log. */
  const checksOf = async (log: 'bound' | 'implicit') =>
    (await suite.env.otel.points(CHECKS_METRIC))
      .filter((p) => p.attributes['nous.session.invariant.log'] === log)
      .reduce((n, p) => n + p.value, 0);
  const unbound = () => client().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'anything' }] });

  /** Runs `fn` with NOUS_SESSION_INVARIANT_IMPLICIT set to `value` and the instrumentation's `implicit` config set to `implicit`. */
  async function withImplicitSettings(value: string | undefined, implicit: boolean | undefined, fn: () => Promise<void>) {
    const config = suite.env.instrumentation.getConfig();
    const previous = process.env.NOUS_SESSION_INVARIANT_IMPLICIT;
    if (value === undefined) delete process.env.NOUS_SESSION_INVARIANT_IMPLICIT;
    else process.env.NOUS_SESSION_INVARIANT_IMPLICIT = value;
    suite.env.instrumentation.setConfig({ ...config, implicit });
    try {
      await fn();
    } finally {
      suite.env.instrumentation.setConfig(config);
      if (previous === undefined) delete process.env.NOUS_SESSION_INVARIANT_IMPLICIT;
      else process.env.NOUS_SESSION_INVARIANT_IMPLICIT = previous;
    }
  }

  it('tool call arguments nested 100,000 levels deep: checked, bound and implicit, never a violation or an internal error', async () => {
    const depth = 100_000;
    const deepArguments = '{"a":['.repeat(depth) + '1' + ']}'.repeat(depth);
    const history = [
      { role: 'user' as const, content: 'Go deep' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: 'call_deep', type: 'function' as const, function: { name: 'deep', arguments: deepArguments } }],
      },
      { role: 'tool' as const, tool_call_id: 'call_deep', content: 'done' },
    ];
    const internalErrors = async () => await suite.env.otel.total(INTERNAL_ERROR_METRIC);
    const violationsBefore = (await violationPoints()).reduce((n, p) => n + p.value, 0);
    const errorsBefore = await internalErrors();
    const implicitBefore = await checksOf('implicit');
    // The implicit log: the first request, then one that continues it with the call and its result.
    await client().chat.completions.create({ model: 'gpt-test', messages: history.slice(0, 1) });
    await client().chat.completions.create({ model: 'gpt-test', messages: history });
    expect(await checksOf('implicit')).toBe(implicitBefore + 2);
    // A bound log holding the call.
    const log = new SessionLog();
    log.append('user_message', { content: 'Go deep' });
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'call_deep', name: 'deep', arguments: deepArguments }] });
    log.append('tool_result', { content: 'done', toolCallId: 'call_deep', name: 'deep' });
    await withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages: history }), { mode: 'strict' });
    expect((await violationPoints()).reduce((n, p) => n + p.value, 0)).toBe(violationsBefore);
    expect(await internalErrors()).toBe(errorsBefore);
    // A real fault beside the deep call is still reported as what it is.
    const dropped = withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages: history.slice(1) }), {
      mode: 'strict',
    });
    await expect(dropped).rejects.toMatchObject({ details: { kind: 'missing_message' } });
  });

  it('without a bound session the request is checked against the implicit conversation', async () => {
    const before = await checksOf('implicit');
    await unbound();
    expect(await checksOf('implicit')).toBe(before + 1);
  });

  it.each([
    [
      'a tool result truncated in place',
      (history: Array<Record<string, unknown>>) => {
        const result = history.find((m) => m.role === 'tool')!;
        result.content = String(result.content).slice(0, 5);
      },
    ],
    [
      "a tool call's arguments edited in place",
      (history: Array<Record<string, unknown>>) => {
        const calls = history.find((m) => m.tool_calls)!.tool_calls as Array<{ function: { arguments: string } }>;
        calls[0]!.function.arguments = '{"city":"Porto"}';
      },
    ],
    [
      'a text part edited in place',
      (history: Array<Record<string, unknown>>) => {
        // Not the first user message: a request whose first message differs starts a conversation of its own.
        (history[5]!.content as Array<{ text: string }>)[0]!.text = 'And the day after?';
      },
    ],
  ])("the app's own history objects re-sent with %s: caught, though the unchanged ones are read once", async (name, rewrite) => {
    const history: Array<Record<string, unknown>> = [
      { role: 'system', content: 'You are a weather bot.' },
      { role: 'user', content: `Umbrella in Lisbon? (${name})` }, // a conversation of its own
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"rain":true,"temperature":14}' },
    ];
    const send = () => client().chat.completions.create({ model: 'gpt-test', messages: history as never });
    const violations = async () => (await violationPoints()).reduce((n, p) => n + p.value, 0);
    const before = await violations();
    const reply = (await send()).choices[0]!.message;
    history.push(reply as never, { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] });
    const second = (await send()).choices[0]!.message;
    history.push(second as never, { role: 'user', content: 'Thanks' });
    await send();
    expect(await violations()).toBe(before); // the same objects, grown: silent
    rewrite(history);
    history.push({ role: 'user', content: 'Bye' });
    await send();
    expect(await violations()).toBe(before + 1);
  });

  it('with the implicit log switched off, a request with no bound session is not checked', async () => {
    await withImplicitSettings(undefined, false, async () => {
      const before = await suite.env.otel.total(CHECKS_METRIC);
      await unbound();
      expect(await suite.env.otel.total(CHECKS_METRIC)).toBe(before);
    });
  });

  it('NOUS_SESSION_INVARIANT_IMPLICIT=false turns the implicit log off, and a bound session is still checked', async () => {
    await withImplicitSettings('false', undefined, async () => {
      const [implicitBefore, boundBefore] = [await checksOf('implicit'), await checksOf('bound')];
      await unbound();
      const log = weatherLog();
      await withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages: toOpenAIChat(log.deriveMessages()) }));
      expect(await checksOf('implicit')).toBe(implicitBefore);
      expect(await checksOf('bound')).toBe(boundBefore + 1);
    });
  });

  it('a check switched off does not read the request: mode off, or no session with the implicit log off', async () => {
    // The SDK serialises the body once; the check reads each entry again. Counted on a getter.
    async function readsOf(run: (messages: never) => Promise<unknown>): Promise<number> {
      let reads = 0;
      const messages = [
        {
          role: 'user',
          get content() {
            reads++;
            return 'Umbrella in Lisbon?';
          },
        },
      ];
      await run(messages as never);
      return reads;
    }
    const send = (messages: never) => client().chat.completions.create({ model: 'gpt-test', messages });
    const checked = await readsOf(send);
    const sessionOff = await readsOf((messages) => withSession(weatherLog(), () => send(messages), { mode: 'off' }));
    let implicitOff = -1;
    await withImplicitSettings(undefined, false, async () => {
      implicitOff = await readsOf(send);
    });
    expect(sessionOff).toBeLessThan(checked);
    expect(implicitOff).toBe(sessionOff);
  });

  it('implicit: true in the config wins over NOUS_SESSION_INVARIANT_IMPLICIT=false', async () => {
    await withImplicitSettings('false', true, async () => {
      const before = await checksOf('implicit');
      await unbound();
      expect(await checksOf('implicit')).toBe(before + 1);
    });
  });

  it('mode off in the session skips the check', async () => {
    const before = await suite.env.otel.total(CHECKS_METRIC);
    await withSession(weatherLog(), () => client().chat.completions.create({ model: 'gpt-test', messages: [] }), { mode: 'off' });
    expect(await suite.env.otel.total(CHECKS_METRIC)).toBe(before);
  });

  it('strict mode throws before the server receives the request', async () => {
    const log = weatherLog();
    const sent = suite.server.received.length;
    const call = withSession(
      log,
      () => client().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'ghost' }] }),
      {
        mode: 'strict',
      },
    );
    await expect(call).rejects.toBeInstanceOf(SessionInvariantViolation);
    await expect(call).rejects.toMatchObject({ details: { kind: 'missing_message' } });
    expect(suite.server.received.length).toBe(sent);
  });

  it('strict mode with content capture off: the thrown error carries no prompt text, however it is printed', async () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', '');
    try {
      const log = weatherLog();
      const messages = toOpenAIChat(log.deriveMessages()).map((m) =>
        m.role === 'user' ? { role: 'user' as const, content: 'Umbrella in Porto? secret prompt text' } : m,
      );
      const thrown = await withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages }), {
        mode: 'strict',
      }).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(SessionInvariantViolation);
      expect(thrown).toMatchObject({ details: { kind: 'missing_message', extra: [{ preview: null }], missing: [{ preview: null }] } });
      for (const rendering of renderingsOf(thrown)) {
        expect(rendering).not.toContain('secret prompt text');
        expect(rendering).not.toContain('Umbrella in Lisbon?');
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('streaming still works and is checked', async () => {
    const log = weatherLog();
    const stream = await withSession(log, () =>
      client().chat.completions.create({
        model: 'gpt-test',
        stream: true,
        messages: [...toOpenAIChat(log.deriveMessages()), { role: 'user', content: 'x' }],
      }),
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toMatch(/^answer \d+$/);
    expect((await violationPoints()).some((p) => p.attributes['nous.session.invariant.kind'] === 'extra_message')).toBe(true);
  });

  it('returns exactly what the SDK returns: withResponse, asResponse, parse and tee work', async () => {
    const log = weatherLog();
    const messages = toOpenAIChat(log.deriveMessages());
    await withSession(log, async () => {
      const { data, response } = await client().chat.completions.create({ model: 'gpt-test', messages }).withResponse();
      expect(response.status).toBe(200);
      expect(data.object).toBe('chat.completion');
      const raw = await client().chat.completions.create({ model: 'gpt-test', messages }).asResponse();
      expect(((await raw.json()) as { object: string }).object).toBe('chat.completion');
      const parsed = await client().chat.completions.parse({ model: 'gpt-test', messages });
      expect(parsed.choices[0]!.message.content).toMatch(/^answer/);
      const stream = await client().chat.completions.create({ model: 'gpt-test', messages, stream: true });
      const [a, b] = stream.tee();
      let left = '';
      let right = '';
      for await (const chunk of a) left += chunk.choices[0]?.delta.content ?? '';
      for await (const chunk of b) right += chunk.choices[0]?.delta.content ?? '';
      expect(left).toBe(right);
    });
    expect(await violationPoints()).toEqual(
      expect.not.arrayContaining([
        expect.objectContaining({ attributes: expect.objectContaining({ 'nous.session.invariant.kind': 'invalid_request' }) }),
      ]),
    );
  });

  it('an aborted call rejects exactly as it does without the instrumentation', async () => {
    const aborted = async (): Promise<Error> => {
      const controller = new AbortController();
      controller.abort();
      const outcome = await withSession(weatherLog(), () =>
        client().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }, { signal: controller.signal }),
      ).catch((error: unknown) => error);
      if (!(outcome instanceof Error)) throw new Error('the aborted call resolved');
      return outcome;
    };
    const instrumented = await aborted();
    suite.env.instrumentation.disable();
    const bare = await aborted();
    suite.env.instrumentation.enable();
    expect(instrumented).toBeInstanceOf(suite.env.openai.APIUserAbortError);
    expect(instrumented.constructor).toBe(bare.constructor);
    expect(instrumented.message).toBe(bare.message);
  });

  it('does not alter the request: the server receives the body the caller built', async () => {
    const log = weatherLog();
    const messages = [...toOpenAIChat(log.deriveMessages()), { role: 'user' as const, content: 'ghost' }];
    await withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages, temperature: 0.2 }));
    expect(suite.server.received.at(-1)!.body).toEqual({ model: 'gpt-test', messages, temperature: 0.2 });
  });

  it('a retried attempt is the same logical request: its violation counts once', async () => {
    const log = weatherLog();
    const before = (await violationPoints()).reduce((n, p) => n + p.value, 0);
    const sent = suite.server.received.length;
    suite.server.failNext(1);
    await withSession(log, () =>
      client({ maxRetries: 2 }).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'ghost' }] }),
    );
    expect(suite.server.received.length - sent).toBe(2);
    expect((await violationPoints()).reduce((n, p) => n + p.value, 0) - before).toBe(1);
  });

  it('malformed input never throws into the call: the request goes out and the problem is reported', async () => {
    const log = weatherLog();
    const sent = suite.server.received.length;
    const call = withSession(log, () => client().chat.completions.create({ model: 'gpt-test', messages: { not: 'a list' } as never }));
    await expect(call).resolves.toBeDefined();
    expect(suite.server.received.length).toBe(sent + 1);
    expect((await violationPoints()).some((p) => p.attributes['nous.session.invariant.kind'] === 'invalid_request')).toBe(true);
  });
});

describe('openai chat completions with n > 1, against the implicit log', () => {
  const violationsOf = async (kind?: string) =>
    (await violationPoints())
      .filter((p) => kind === undefined || p.attributes['nous.session.invariant.kind'] === kind)
      .reduce((n, p) => n + p.value, 0);
  /** A streamed reply read to its end, after which its clone has been read too. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  /** Asks for two choices (JSON or streamed); returns the request sent and the choices' messages. */
  async function twoChoices(stream: boolean, topic: string) {
    const r1 = [
      { role: 'system' as const, content: 'You are brief.' },
      { role: 'user' as const, content: `Name a colour (${topic}, ${stream ? 'stream' : 'json'})` },
    ];
    const choices: Array<{ role: 'assistant'; content: string }> = [];
    if (stream) {
      const texts: string[] = [];
      const events = await client().chat.completions.create({ model: 'gpt-test', n: 2, stream: true, messages: r1 });
      for await (const chunk of events) for (const c of chunk.choices) texts[c.index] = (texts[c.index] ?? '') + (c.delta.content ?? '');
      await settle();
      for (const text of texts) choices.push({ role: 'assistant', content: text });
    } else {
      const completion = await client().chat.completions.create({ model: 'gpt-test', n: 2, messages: r1 });
      for (const c of completion.choices) choices[c.index] = { role: 'assistant', content: c.message.content! };
    }
    expect(choices).toHaveLength(2);
    expect(choices[0]!.content).not.toBe(choices[1]!.content);
    return { r1, choices };
  }

  it.each([
    [false, 0],
    [false, 1],
    [true, 0],
    [true, 1],
  ])('stream %s: continuing with choice %i of two is a continuation, silent', async (stream, k) => {
    const before = await violationsOf();
    await inUserSpan(async () => {
      const { r1, choices } = await twoChoices(stream, `continue ${k}`);
      const r2 = [...r1, choices[k]!, { role: 'user' as const, content: 'Why that one?' }];
      const second = await client().chat.completions.create({ model: 'gpt-test', messages: r2 });
      await client().chat.completions.create({
        model: 'gpt-test',
        messages: [...r2, second.choices[0]!.message, { role: 'user' as const, content: 'Thanks' }],
      });
    });
    expect(await violationsOf()).toBe(before);
  });

  it.each([false, true])('stream %s: the chosen reply dropped, or edited, is still missing_message, once', async (stream) => {
    const before = await violationsOf('missing_message');
    const all = await violationsOf();
    await inUserSpan(async () => {
      const { r1 } = await twoChoices(stream, 'dropped');
      await client().chat.completions.create({ model: 'gpt-test', messages: [...r1, { role: 'user', content: 'Why that one?' }] });
    });
    expect(await violationsOf('missing_message')).toBe(before + 1);
    await inUserSpan(async () => {
      const { r1, choices } = await twoChoices(stream, 'edited');
      const edited = { ...choices[1]!, content: `${choices[1]!.content}, or rather mauve` };
      await client().chat.completions.create({ model: 'gpt-test', messages: [...r1, edited, { role: 'user', content: 'Why?' }] });
    });
    expect(await violationsOf('missing_message')).toBe(before + 2);
    expect(await violationsOf()).toBe(all + 2);
  });
});

describe('openai responses', () => {
  it('instructions are the overlay slot; input items reconstruct the fold', async () => {
    const log = weatherLog();
    const fold = log.deriveMessages().slice(1); // no leading system: instructions carry it
    const noSystem = new SessionLog();
    for (const m of fold)
      noSystem.append(m.role === 'tool' ? 'tool_result' : (`${m.role}_message` as never), { ...m, createdAt: undefined });
    const before = (await violationPoints()).reduce((n, p) => n + p.value, 0);
    const response = await withSession(noSystem, () =>
      client().responses.create({ model: 'gpt-test', instructions: 'Be brief.', input: toOpenAIResponses(noSystem.deriveMessages()) }),
    );
    expect(response.output_text).toMatch(/^answer/);
    expect((await violationPoints()).reduce((n, p) => n + p.value, 0)).toBe(before);
  });

  it('does not alter the request: function_call_output and item_reference items reach the server as built', async () => {
    const input = [
      { role: 'user' as const, content: 'Umbrella in Lisbon?' },
      { type: 'item_reference' as const, id: 'fc_1' },
      { type: 'function_call_output' as const, call_id: 'call_1', output: '{"rain":true}' },
    ];
    const sent = JSON.parse(JSON.stringify(input)) as unknown;
    await client().responses.create({ model: 'gpt-test', input });
    expect(suite.server.received.at(-1)!.body).toEqual({ model: 'gpt-test', input: sent });
    expect(input).toEqual(sent);
  });

  it('an invented input item is extra_message', async () => {
    const log = weatherLog();
    await inUserSpan(() =>
      withSession(log, () =>
        client().responses.create({
          model: 'gpt-test',
          input: [...toOpenAIResponses(log.deriveMessages()), { role: 'user', content: 'ghost' }],
        }),
      ),
    );
    const span = suite.env.otel.spans.getFinishedSpans().find((s) => s.name === 'agent step')!;
    expect(span.events[0]!.attributes).toMatchObject({ 'nous.session.invariant.kind': 'extra_message', 'nous.session.invariant.index': 4 });
  });

  it('a string input is one user message', async () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'hello' });
    const before = (await violationPoints()).reduce((n, p) => n + p.value, 0);
    await withSession(log, () => client().responses.create({ model: 'gpt-test', input: 'hello' }));
    expect((await violationPoints()).reduce((n, p) => n + p.value, 0)).toBe(before);
  });
});

describe('openai responses chained with previous_response_id, then the whole history re-sent', () => {
  const violationsOf = async (kind?: string) =>
    (await violationPoints())
      .filter((p) => kind === undefined || p.attributes['nous.session.invariant.kind'] === kind)
      .reduce((n, p) => n + p.value, 0);
  type Item = Record<string, unknown>;

  /** Three turns: the first sends its input in full, the next two only what is new, chained by response id. */
  async function chained(topic: string, stream: boolean) {
    const create = async (body: Record<string, unknown>) => {
      if (!stream) return client().responses.create({ model: 'gpt-test', ...body } as never);
      let done: { id: string; output: unknown[] } | undefined;
      type Event = { type: string; response?: { id: string; output: unknown[] } };
      const events = (await client().responses.create({ model: 'gpt-test', stream: true, ...body } as never)) as unknown;
      for await (const event of events as AsyncIterable<Event>) if (event.type === 'response.completed') done = event.response;
      await new Promise((resolve) => setTimeout(resolve, 50)); // the clone the reply is read from
      return done!;
    };
    const history: Item[] = [{ role: 'user', content: `Hello (${topic}, ${stream ? 'stream' : 'json'})` }];
    let response = (await create({ instructions: 'Be brief.', input: history })) as { id: string; output: Item[] };
    history.push(...response.output);
    for (const question of ['How are you?', 'And tomorrow?']) {
      const added = [{ role: 'user', content: question }];
      response = (await create({ instructions: 'Be brief.', previous_response_id: response.id, input: added })) as typeof response;
      history.push(...added, ...response.output);
    }
    return history;
  }

  it.each([false, true])('stream %s: a full re-send (the response id lost) is a continuation, silent', async (stream) => {
    const before = await violationsOf();
    await inUserSpan(async () => {
      const history = await chained('re-send', stream);
      expect(history).toHaveLength(6);
      const response = await client().responses.create({
        model: 'gpt-test',
        instructions: 'Be brief.',
        input: [...history, { role: 'user', content: 'Thanks' }] as never,
      });
      await client().responses.create({
        model: 'gpt-test',
        instructions: 'Be brief.',
        input: [...history, { role: 'user', content: 'Thanks' }, ...response.output, { role: 'user', content: 'Bye' }] as never,
      });
    });
    expect(await violationsOf()).toBe(before);
  });

  it.each([false, true])(
    'stream %s: a full re-send with a held reply dropped, or edited, is missing_message, once each',
    async (stream) => {
      const before = await violationsOf('missing_message');
      const all = await violationsOf();
      await inUserSpan(async () => {
        const history = await chained('dropped', stream);
        const dropped = [...history.slice(0, 3), ...history.slice(4), { role: 'user', content: 'Thanks' }]; // the second reply
        await client().responses.create({ model: 'gpt-test', instructions: 'Be brief.', input: dropped as never });
      });
      expect(await violationsOf('missing_message')).toBe(before + 1);
      await inUserSpan(async () => {
        const history = await chained('edited', stream);
        const edited = [...history.slice(0, 5), { role: 'assistant', content: 'I promise a refund.' }, { role: 'user', content: 'Thanks' }];
        await client().responses.create({ model: 'gpt-test', instructions: 'Be brief.', input: edited as never });
      });
      expect(await violationsOf('missing_message')).toBe(before + 2);
      expect(await violationsOf()).toBe(all + 2);
    },
  );
});

describe('enable and disable', () => {
  it('disable() restores the original prepareOptions, enable() puts the hook back', async () => {
    const proto = suite.env.openai.OpenAI.prototype as unknown as { prepareOptions: { __wrapped?: boolean } };
    expect(proto.prepareOptions.__wrapped).toBe(true);
    suite.env.instrumentation.disable();
    expect(proto.prepareOptions.__wrapped).toBeUndefined();
    const before = await suite.env.otel.total(CHECKS_METRIC);
    await withSession(weatherLog(), () => client().chat.completions.create({ model: 'gpt-test', messages: [] }));
    expect(await suite.env.otel.total(CHECKS_METRIC)).toBe(before);
    suite.env.instrumentation.enable();
    expect(proto.prepareOptions.__wrapped).toBe(true);
  });

  it('does not double patch when enabled twice', () => {
    suite.env.instrumentation.enable();
    const proto = suite.env.openai.OpenAI.prototype as unknown as { prepareOptions: { __original?: { __wrapped?: boolean } } };
    expect(proto.prepareOptions.__original?.__wrapped).toBeUndefined();
  });

  it('warns once, naming the version, for an SDK outside the supported range', () => {
    const definition = suite.env.instrumentation.getModuleDefinitions().find((d) => d.name === 'openai')!;
    const fake = { OpenAI: class {} };
    definition.patch!(fake, '4.20.0');
    definition.patch!(fake, '4.20.0');
    expect(warn.mock.calls.filter(([m]) => /openai 4\.20\.0 is outside the supported range/.test(m as string))).toHaveLength(1);
  });
});
