import { createOpenAI } from '@ai-sdk/openai';
import {
  generateText,
  jsonSchema,
  streamText,
  stepCountIs,
  tool,
  wrapLanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
} from 'ai';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../src/telemetry/semconv';
import { SessionInvariantViolation, SessionLog, VIOLATION_METRIC, appendMessage, messagesMatch, withSession } from '../src/index';
import { fromAiSdkPrompt, toAiSdkPrompt } from '../src/adapters';
import { recordAiSdkSteps, sessionInvariantMiddleware } from '../src/ai-sdk';
import { AI_SDK_TELEMETRY_CHANNEL, subscribeAiSdkTelemetry } from '../src/integrations/ai-sdk/telemetry-channel';
import diagnosticsChannel from 'node:diagnostics_channel';
import { providerTranscriptArb, withoutUserNames } from './support/arbitraries';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { registerOtel, type OtelHarness } from './support/otel';

let server: FakeProvider;
let otel: OtelHarness;

beforeAll(async () => {
  server = await startFakeProvider();
});
afterAll(() => server.close());
beforeEach(() => {
  otel = registerOtel();
});
afterEach(async () => {
  await otel.teardown();
});

const weather = tool({
  description: 'weather in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }) => ({ city, rain: true }),
});

/** A buggy request builder: it drops tool results from the prompt. */
const dropToolResults: LanguageModelMiddleware = {
  specificationVersion: 'v4',
  transformParams: async ({ params }) => ({ ...params, prompt: params.prompt.filter((m) => m.role !== 'tool') }),
};

function model(...middleware: LanguageModelMiddleware[]) {
  const openai = createOpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL });
  return wrapLanguageModel({ model: openai.chat('gpt-test'), middleware });
}

function userLog(text: string): SessionLog {
  const log = new SessionLog();
  appendMessage(log, { role: 'user', content: text });
  return log;
}

describe('Vercel AI SDK: sessionInvariantMiddleware', () => {
  it('a multi-step tool-calling run with the steps recorded raises no violation in strict mode', async () => {
    const log = userLog('Umbrella in Lisbon?');
    const result = await withSession(log, () =>
      generateText({
        model: model(sessionInvariantMiddleware({ mode: 'strict', agentName: 'ai-sdk-agent' })),
        instructions: 'You are a weather bot.',
        messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }],
        tools: { weather },
        stopWhen: stepCountIs(3),
        onStepEnd: recordAiSdkSteps(log),
      }),
    );
    expect(result.steps).toHaveLength(2);
    expect(result.text).toMatch(/^answer/);
    expect(await otel.total(CHECKS_METRIC)).toBe(2);
    expect(await otel.total(VIOLATION_METRIC)).toBe(0);
    expect(log.deriveMessages().map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('the step recorder takes the same words said twice as two replies (a call continuing after an assistant message)', async () => {
    // A model that always says the same thing (as a deterministic one may).
    const sameWords: LanguageModelMiddleware = {
      specificationVersion: 'v4',
      wrapGenerate: async ({ doGenerate }) => ({ ...(await doGenerate()), content: [{ type: 'text', text: 'Sure.' }] }),
    };
    const log = new SessionLog();
    const messages: ModelMessage[] = [];
    const say = async (text?: string) => {
      if (text !== undefined) {
        messages.push({ role: 'user', content: text });
        appendMessage(log, { role: 'user', content: text });
      }
      const result = await withSession(log, () =>
        generateText({
          model: model(sessionInvariantMiddleware({ mode: 'strict' }), sameWords),
          messages,
          maxRetries: 0,
          onStepEnd: recordAiSdkSteps(log),
        }),
      );
      messages.push(...result.responseMessages);
    };
    await say('Say sure.');
    await say(); // the history ends with the assistant's "Sure.", and the model says it again
    await say('Thanks.');
    expect(log.deriveMessages().map((m) => [m.role, m.content])).toEqual([
      ['user', 'Say sure.'],
      ['assistant', 'Sure.'],
      ['assistant', 'Sure.'],
      ['user', 'Thanks.'],
      ['assistant', 'Sure.'],
    ]);
    expect(await otel.total(CHECKS_METRIC)).toBe(3);
    expect(await otel.total(VIOLATION_METRIC)).toBe(0);
  });

  it.each([
    [{ captureMessageContent: true }, true],
    [{ captureContent: true }, true],
    [{ captureMessageContent: false, captureContent: true }, false],
    [{}, false],
  ])('content capture from the middleware option %j (captureContent: the deprecated alias): previews %s', async (option, previews) => {
    const log = userLog('Umbrella in Lisbon?');
    await withSession(log, () =>
      generateText({
        model: model(sessionInvariantMiddleware({ mode: 'warn', ...option })),
        messages: [
          { role: 'user', content: 'Umbrella in Lisbon?' },
          { role: 'user', content: 'ghost words' },
        ],
      }),
    );
    const events = otel.spans
      .getFinishedSpans()
      .flatMap((span) => span.events)
      .filter((event) => event.name === 'nous.session.invariant.violation');
    expect(events).toHaveLength(1);
    const extra = events[0]!.attributes!['nous.session.invariant.extra.previews'];
    expect(extra).toEqual(previews ? ['[1 content parts]'] : undefined);
  });

  it('a middleware that drops the tool result is caught as missing_message', async () => {
    const log = userLog('Umbrella in Lisbon?');
    await withSession(log, () =>
      generateText({
        model: model(dropToolResults, sessionInvariantMiddleware({ mode: 'warn' })),
        messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }],
        tools: { weather },
        stopWhen: stepCountIs(2),
        onStepEnd: recordAiSdkSteps(log),
      }).catch(() => undefined),
    );
    expect(await otel.total(VIOLATION_METRIC, 'missing_message')).toBe(1);
  });

  it('a session that invents a message (the log never saw it) is extra_message, and strict throws before the request is sent', async () => {
    const log = userLog('Umbrella in Lisbon?');
    const sent = server.received.length;
    const run = withSession(log, () =>
      generateText({
        model: model(sessionInvariantMiddleware({ mode: 'strict' })),
        messages: [
          { role: 'user', content: 'Umbrella in Lisbon?' },
          { role: 'user', content: 'and Porto?' },
        ],
        maxRetries: 0,
      }),
    );
    await expect(run).rejects.toBeInstanceOf(SessionInvariantViolation);
    await expect(run).rejects.toMatchObject({ details: { kind: 'extra_message' } });
    expect(server.received.length).toBe(sent);
  });

  it('streamText is checked too', async () => {
    const log = userLog('hi');
    const result = withSession(log, () =>
      streamText({ model: model(sessionInvariantMiddleware({ mode: 'warn' })), messages: [{ role: 'user', content: 'hello?' }] }),
    );
    expect(await result.text).toMatch(/^answer/);
    expect(await otel.total(VIOLATION_METRIC, 'missing_message')).toBe(1);
  });

  it('a retry of a failed attempt is one checked request', async () => {
    const log = userLog('hi');
    server.failNext(1);
    await withSession(log, () =>
      generateText({
        model: model(sessionInvariantMiddleware({ mode: 'warn' })),
        messages: [{ role: 'user', content: 'hi' }],
        maxRetries: 1,
      }),
    );
    expect(await otel.total(CHECKS_METRIC)).toBe(1);
    expect(await otel.total(VIOLATION_METRIC)).toBe(0);
  });

  it('the same params object sent again after an answered call is checked again, against the grown log', async () => {
    const log = userLog('hi');
    const wrapped = model(sessionInvariantMiddleware({ mode: 'warn' }));
    const params = { prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] };
    await withSession(log, () => wrapped.doGenerate(params));
    appendMessage(log, { role: 'assistant', content: 'answer' });
    appendMessage(log, { role: 'user', content: 'and tomorrow?' });
    // The app reuses its params object, rebuilt without the reply: a real fault, not a retry.
    params.prompt = [...params.prompt, { role: 'user', content: [{ type: 'text', text: 'and tomorrow?' }] }];
    await withSession(log, () => wrapped.doGenerate(params));
    expect(await otel.total(CHECKS_METRIC)).toBe(2);
    expect(await otel.total(VIOLATION_METRIC, 'missing_message')).toBe(1);
  });

  it('takes the log from the options when no session is bound', async () => {
    const log = userLog('hi');
    await generateText({ model: model(sessionInvariantMiddleware({ log, mode: 'warn' })), messages: [{ role: 'user', content: 'hi' }] });
    expect(await otel.total(CHECKS_METRIC)).toBe(1);
    expect(await otel.total(VIOLATION_METRIC)).toBe(0);
  });
});

describe("Vercel AI SDK: the 'ai:telemetry' diagnostics channel (zero code)", () => {
  it('malformed and hostile channel messages never throw, hang or crash: a list claiming 2**32 - 1 messages is reported unread', async () => {
    const unsubscribe = subscribeAiSdkTelemetry();
    try {
      const channel = diagnosticsChannel.tracingChannel(AI_SDK_TELEMETRY_CHANNEL);
      const sparse: unknown[] = [];
      sparse.length = 2 ** 32 - 1;
      const throwingType = Object.defineProperty({}, 'type', {
        get: () => {
          throw Object.create(null);
        },
      });
      const started = Date.now();
      for (const message of [
        { type: 'languageModelCall', event: { provider: 'openai.chat', modelId: 'gpt-test', messages: sparse } },
        { type: 'languageModelCall', event: { messages: [{ role: 'user', content: 'hi' }], instructions: sparse } },
        throwingType,
        { type: 'languageModelCall', event: null },
      ]) {
        await expect(channel.tracePromise(async () => 'ok', message)).resolves.toBe('ok');
      }
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await otel.total(VIOLATION_METRIC, 'invalid_request')).toBe(2);
    } finally {
      unsubscribe();
    }
  });

  it('records a violation with nothing but the subscriber, and never throws into the call', async () => {
    const unsubscribe = subscribeAiSdkTelemetry();
    try {
      const openai = createOpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL });
      const text = await withSession(
        userLog('hi'),
        async () => (await generateText({ model: openai.chat('gpt-test'), messages: [{ role: 'user', content: 'something else' }] })).text,
        { mode: 'strict' },
      );
      expect(text).toMatch(/^answer/);
      expect(await otel.total(VIOLATION_METRIC, 'missing_message')).toBe(1);
      expect((await otel.points(VIOLATION_METRIC))[0]!.attributes['nous.session.invariant.mode']).toBe('warn');
    } finally {
      unsubscribe();
    }
  });

  it('with the middleware too, each call is counted once and strict still throws', async () => {
    const unsubscribe = subscribeAiSdkTelemetry();
    try {
      const run = withSession(
        userLog('hi'),
        () =>
          generateText({
            model: model(sessionInvariantMiddleware({ mode: 'strict' })),
            messages: [{ role: 'user', content: 'other' }],
            maxRetries: 0,
          }),
        { mode: 'strict' },
      );
      await expect(run).rejects.toBeInstanceOf(SessionInvariantViolation);
      expect(await otel.total(VIOLATION_METRIC)).toBe(1);
      expect(await otel.total(CHECKS_METRIC)).toBe(1);
    } finally {
      unsubscribe();
    }
  });
});

describe('Vercel AI SDK: the channel defers to the middleware, which sees the final prompt', () => {
  it("a middleware dropping tool results is caught even though the call's messages still hold them", async () => {
    const unsubscribe = subscribeAiSdkTelemetry();
    try {
      const log = userLog('Umbrella in Lisbon?');
      const run = withSession(log, () =>
        generateText({
          model: model(dropToolResults, sessionInvariantMiddleware({ mode: 'strict' })),
          messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }],
          tools: { weather },
          stopWhen: stepCountIs(3),
          onStepEnd: recordAiSdkSteps(log),
          maxRetries: 0,
        }),
      );
      await expect(run).rejects.toMatchObject({ details: { kind: 'missing_message' } });
      expect(await otel.total(VIOLATION_METRIC)).toBe(1);
      expect(await otel.total(CHECKS_METRIC)).toBe(2);
    } finally {
      unsubscribe();
    }
  });
});

describe('AI SDK prompt adapter', () => {
  it('canonical -> AI SDK prompt -> canonical is the identity on the compared fields', () => {
    fc.assert(
      fc.property(providerTranscriptArb.map(withoutUserNames), (messages) => {
        const back = fromAiSdkPrompt(toAiSdkPrompt(messages));
        expect(back).toHaveLength(messages.length);
        back.forEach((m, i) => expect(messagesMatch(m, messages[i]!), JSON.stringify([m, messages[i]])).toBe(true));
      }),
      { numRuns: 1000 },
    );
  });
});
