// Google Gemini through the real `@google/genai` client against a loopback
// provider: it calls `globalThis.fetch`, so the fetch seam checks its
// requests with no code. Without a bound log, a correct function-calling
// loop stays silent and each history bug is reported once, with its kind,
// against the implicit conversation; with `withSession`, against the log.

import { trace } from '@opentelemetry/api';
import { GoogleGenAI, type Content } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionLog, VIOLATION_METRIC, setLogger, withSession } from '../../src/index';
import { toGemini } from '../../src/adapters';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { instrument, type Instrumented } from '../support/instrumented';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini';

let server: FakeGemini;
let env: Instrumented;

beforeAll(async () => {
  server = await startFakeGemini();
  env = instrument({ mode: 'warn' });
  setLogger({ warn: () => {} });
});
afterAll(async () => {
  setLogger(null);
  env.instrumentation.disable();
  await env.otel.teardown();
  await server.close();
});
beforeEach(() => env.otel.spans.reset());

/** The sum of a counter's points, of one violation kind or log when given. */
async function total(metric: string, where: Record<string, string> = {}): Promise<number> {
  return (await env.otel.points(metric))
    .filter((p) => Object.entries(where).every(([key, value]) => p.attributes[`nous.session.invariant.${key}`] === value))
    .reduce((n, p) => n + p.value, 0);
}

/** Counters before `run`, and what it added. */
async function counted(run: () => Promise<void>): Promise<{ checks: number; violations: Record<string, number> }> {
  const kinds = ['missing_message', 'extra_message', 'order', 'orphaned_tool_result', 'invalid_request'];
  const before = { checks: await total(CHECKS_METRIC), kinds: await Promise.all(kinds.map((kind) => total(VIOLATION_METRIC, { kind }))) };
  await run();
  const after = await Promise.all(kinds.map((kind) => total(VIOLATION_METRIC, { kind })));
  const violations: Record<string, number> = {};
  kinds.forEach((kind, i) => {
    if (after[i]! > before.kinds[i]!) violations[kind] = after[i]! - before.kinds[i]!;
  });
  return { checks: (await total(CHECKS_METRIC)) - before.checks, violations };
}

const CONFIG = {
  systemInstruction: 'You are a weather bot.',
  tools: [
    { functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] },
  ],
};

function client(vertex = false): GoogleGenAI {
  return vertex
    ? new GoogleGenAI({ vertexai: true, apiKey: 'k', httpOptions: { baseUrl: server.url } })
    : new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: server.url } });
}

/** One model turn: the candidate's content as the app keeps it (a stream's parts, as they came, in one turn). */
async function send(ai: GoogleGenAI, contents: Content[], stream: boolean): Promise<Content> {
  const params = { model: 'gemini-test', contents: structuredClone(contents), config: CONFIG };
  if (!stream) return (await ai.models.generateContent(params)).candidates![0]!.content!;
  const parts = [];
  for await (const chunk of await ai.models.generateContentStream(params)) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
  return { role: 'model', parts };
}

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
const weather = (output: string): Content => ({
  role: 'user',
  parts: [{ functionResponse: { name: 'get_weather', response: { output } } }],
});

type Fault = 'none' | 'dropped turn' | 'dropped reply' | 'rewritten function response' | 'orphaned function response' | 'invented reply';

/**
 * Two questions, each answered after one function call: four requests. A
 * fault is made in the third request (the second question). (Dropping the
 * latest reply is a branch, a regenerate, outside a run: docs/behaviour.md §8.2.)
 */
async function weatherLoop(ai: GoogleGenAI, stream: boolean, fault: Fault): Promise<void> {
  const tag = Math.random().toString(36).slice(2);
  const contents: Content[] = [user(`Umbrella in Lisbon today? ${tag}`)];
  contents.push(await send(ai, contents, stream)); // a function call
  contents.push(weather('rain'));
  contents.push(await send(ai, contents, stream)); // the answer
  contents.push(user('And tomorrow?'));
  let third = contents;
  if (fault === 'dropped turn') third = contents.filter((_, i) => i !== 1); // the model's function call
  if (fault === 'dropped reply') third = contents.filter((_, i) => i !== 3); // the latest reply
  if (fault === 'rewritten function response') third = contents.map((c, i) => (i === 2 ? weather('sunny') : c));
  if (fault === 'orphaned function response')
    third = [...contents, { role: 'user', parts: [{ functionResponse: { name: 'get_forecast', response: { output: 'dry' } } }] }];
  if (fault === 'invented reply')
    third = [...contents, { role: 'model', parts: [{ text: 'As promised, a refund.' }] }, user('Thanks! And tomorrow?')];
  const call = await send(ai, third, stream);
  contents.push(call, weather('dry'));
  if (fault === 'none') contents.push(await send(ai, contents, stream));
}

describe.each([false, true])('gemini generateContent, zero code (stream %s)', (stream) => {
  it('a correct function-calling loop stays silent, every request checked against the implicit log', async () => {
    const implicitBefore = await total(CHECKS_METRIC, { log: 'implicit' });
    const result = await counted(() => weatherLoop(client(), stream, 'none'));
    expect(result).toEqual({ checks: 4, violations: {} });
    expect((await total(CHECKS_METRIC, { log: 'implicit' })) - implicitBefore).toBe(4);
  });

  it.each([
    ['dropped turn', 'missing_message'],
    ['rewritten function response', 'missing_message'],
    ['orphaned function response', 'orphaned_tool_result'],
    ['invented reply', 'extra_message'],
  ] as const)('a %s is reported once as %s', async (fault, kind) => {
    const result = await counted(() => weatherLoop(client(), stream, fault));
    expect(result.violations).toEqual({ [kind]: 1 });
  });

  it('the reply is observed: within one run (an active span), leaving out the latest reply is missing_message', async () => {
    const result = await counted(() =>
      trace.getTracer('app').startActiveSpan('agent run', async (span) => {
        await weatherLoop(client(), stream, 'dropped reply');
        span.end();
      }),
    );
    expect(result.violations).toEqual({ missing_message: 1 });
  });

  it('on the Vertex AI paths too', async () => {
    const before = server.received.length;
    const correct = await counted(() => weatherLoop(client(true), stream, 'none'));
    expect(correct).toEqual({ checks: 4, violations: {} });
    expect(server.received[before]!.path).toMatch(/^\/v1(beta1)?\/publishers\/google\/models\/gemini-test:(stream)?generateContent$/i);
    const faulty = await counted(() => weatherLoop(client(true), stream, 'dropped turn'));
    expect(faulty.violations).toEqual({ missing_message: 1 });
  });
});

describe('gemini chat sessions (ai.chats), zero code', () => {
  it.each([false, true])('the history the SDK keeps passes, within one run (stream %s)', async (stream) => {
    const result = await counted(() =>
      trace.getTracer('app').startActiveSpan('chat', async (span) => {
        const chat = client().chats.create({ model: 'gemini-test', config: CONFIG });
        const say = async (message: Parameters<typeof chat.sendMessage>[0]['message']) => {
          if (!stream) return void (await chat.sendMessage({ message }));
          for await (const _ of await chat.sendMessageStream({ message }));
        };
        await say(`Umbrella in Lisbon? ${Math.random()}`); // a function call
        await say([{ functionResponse: { name: 'get_weather', response: { output: 'rain' } } }]);
        await say('And tomorrow?'); // a function call
        await say([{ functionResponse: { name: 'get_weather', response: { output: 'dry' } } }]);
        // Streamed, the SDK keeps each chunk of a text reply as a model turn of its own: read as one assistant message.
        expect(chat.getHistory()).toHaveLength(stream ? 10 : 8);
        span.end();
      }),
    );
    expect(result).toEqual({ checks: 4, violations: {} });
  });
});

describe('gemini with a bound log (withSession)', () => {
  function weatherLog(): SessionLog {
    const log = new SessionLog();
    log.append('system_message', { content: 'You are a weather bot.' });
    log.append('user_message', { content: 'Umbrella in Lisbon?' });
    log.append('assistant_message', {
      content: null,
      toolCalls: [{ id: 'get_weather#0', name: 'get_weather', arguments: { city: 'Lisbon' } }],
    });
    log.append('tool_result', { content: 'rain', toolCallId: 'get_weather#0', name: 'get_weather' });
    return log;
  }

  /** The request `toGemini` builds from the log's fold, system instruction included. */
  function request(log: SessionLog, edit: (contents: Content[]) => Content[] = (c) => c) {
    const { systemInstruction, contents } = toGemini(log.deriveMessages());
    return { model: 'gemini-test', contents: edit(contents as Content[]), config: { ...CONFIG, systemInstruction } };
  }

  it('a request built from the fold passes; the reply can be logged and the next request passes too', async () => {
    const log = weatherLog();
    const result = await counted(async () => {
      const reply = await withSession(log, () => client().models.generateContent(request(log)));
      expect(reply.text).toMatch(/^Answer/);
      log.append('assistant_message', { content: reply.text ?? null });
      log.append('user_message', { content: 'And tomorrow?' });
      const stream = await withSession(log, () => client().models.generateContentStream(request(log)));
      for await (const _ of stream);
    });
    expect(result).toEqual({ checks: 2, violations: {} });
    expect(await total(CHECKS_METRIC, { log: 'bound' })).toBeGreaterThanOrEqual(2);
  });

  it('a request that drops the function response, or rewrites it, is reported against the log', async () => {
    const log = weatherLog();
    const dropped = await counted(async () => {
      await withSession(log, () => client().models.generateContent(request(log, (c) => c.slice(0, 2))));
    });
    expect(dropped.violations).toEqual({ missing_message: 1 });
    const rewritten = await counted(async () => {
      await withSession(log, () =>
        client().models.generateContent(request(log, (c) => c.map((entry, i) => (i === 2 ? weather('sunny') : entry)))),
      );
    });
    expect(rewritten.violations).toEqual({ missing_message: 1 });
    expect(await total(VIOLATION_METRIC, { log: 'bound' })).toBeGreaterThanOrEqual(2);
  });
});
