// AI SDK 5 and 6, the real packages from test/versions/ai-sdk-5 and -6
// (installed by the test run's global setup): the middleware with a bound log and the step
// recorder over multi-step tool loops, and the middleware's types compiled
// against each version's own.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../src/telemetry/semconv';
import { SessionInvariantViolation, SessionLog, VIOLATION_METRIC, appendMessage, withSession } from '../src/index';
import { recordAiSdkSteps, sessionInvariantMiddleware } from '../src/ai-sdk';
import { fetchIntegration } from '../src/integrations/fetch/integration';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { registerOtel, type OtelHarness } from './support/otel';
import { PACKAGE_ROOT, runNode } from './support/run-node';

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

type Any = any;

const VERSIONS = [
  { major: 5, provider: 2, spec: undefined },
  { major: 6, provider: 3, spec: 'v3' },
] as const;

describe.each(VERSIONS)('AI SDK $major', ({ major, provider: providerMajor, spec }) => {
  const root = join(PACKAGE_ROOT, `test/versions/ai-sdk-${major}`);
  const load = (name: string): Any => createRequire(join(root, 'package.json'))(name);
  const installed = existsSync(join(root, 'node_modules/ai/package.json'));
  const ai = installed ? load('ai') : undefined;
  const { createOpenAI } = installed ? load('@ai-sdk/openai') : ({} as Any);
  const weather = installed
    ? ai.tool({
        description: 'weather in a city',
        inputSchema: ai.jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
        execute: async ({ city }: { city: string }) => ({ city, rain: true }),
      })
    : undefined;
  /** This version's middleware shape: AI SDK 5's has no tag, 6's is `v3`. */
  const middleware = (m: object) => (spec ? { specificationVersion: spec, ...m } : m);
  /** A buggy request builder: it drops tool results from the prompt. */
  const dropToolResults = middleware({
    transformParams: async ({ params }: Any) => ({ ...params, prompt: params.prompt.filter((m: Any) => m.role !== 'tool') }),
  });
  const model = (api: string, ...middlewares: object[]) => {
    const openai = createOpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL });
    return ai.wrapLanguageModel({
      model: api === 'chat' ? openai.chat('gpt-test') : openai.responses('gpt-test'),
      middleware: middlewares,
    });
  };

  it(`has its fixture installed, ai ${major} with @ai-sdk/openai ${providerMajor} (the test run installs it)`, () => {
    const version = (name: string) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
    expect(installed).toBe(true);
    expect(version('ai')).toMatch(new RegExp(`^${major}\\.`));
    expect(version('@ai-sdk/openai')).toMatch(new RegExp(`^${providerMajor}\\.`));
  });

  describe.each(['chat', 'responses'])('%s API', (api) => {
    // The fake Responses stream sends no text deltas, so a streamed answer there is empty: streamText on chat only.
    const calls = api === 'chat' ? ['generateText', 'streamText'] : ['generateText'];
    describe.each(calls)('%s', (call) => {
      it.each([
        ['made once', (log: SessionLog) => recordAiSdkSteps(log)],
        ['made anew for every step', (log: SessionLog) => (step: Any) => recordAiSdkSteps(log)(step)],
      ])(
        'a bound log kept by recordAiSdkSteps (%s) over a multi-step tool loop, two turns, stays silent in strict mode',
        async (_, recorder) => {
          const log = new SessionLog();
          const messages: Any[] = [];
          let steps = 0;
          const record = recorder(log);
          for (const question of ['Umbrella in Lisbon?', 'And in Porto?']) {
            messages.push({ role: 'user', content: question });
            appendMessage(log, { role: 'user', content: question });
            const result = await withSession(log, async () => {
              const run = ai[call]({
                model: model(api, sessionInvariantMiddleware({ mode: 'strict' })),
                system: 'You are a weather bot.',
                messages,
                tools: { weather },
                stopWhen: ai.stepCountIs(5),
                maxRetries: 0,
                onStepFinish: (step: Any) => {
                  record(step);
                  // A third step: the model calls the tool again after the first result (chat API).
                  if (++steps % 3 === 1) server.callToolNext('weather', { city: 'Faro' });
                },
              });
              return call === 'generateText' ? run : { response: await run.response };
            });
            messages.push(...result.response.messages);
          }
          expect(await otel.total(VIOLATION_METRIC)).toBe(0);
          const turn =
            api === 'chat' ? ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'] : ['user', 'assistant', 'tool', 'assistant'];
          expect(log.deriveMessages().map((m) => m.role)).toEqual([...turn, ...turn]);
          expect(await otel.total(CHECKS_METRIC)).toBe(2 * turn.filter((role) => role === 'assistant').length);
        },
      );
    });

    it('the same words said twice are two replies: a call continuing after an assistant message records its reply', async () => {
      // A model that always says the same thing (as a deterministic one may).
      const sameWords = middleware({
        wrapGenerate: async ({ doGenerate }: Any) => ({ ...(await doGenerate()), content: [{ type: 'text', text: 'Sure.' }] }),
      });
      const log = new SessionLog();
      const messages: Any[] = [];
      const say = async (text?: string) => {
        if (text !== undefined) {
          messages.push({ role: 'user', content: text });
          appendMessage(log, { role: 'user', content: text });
        }
        const result = await withSession(log, () =>
          ai.generateText({
            model: model(api, sessionInvariantMiddleware({ mode: 'strict' }), sameWords),
            messages,
            maxRetries: 0,
            onStepFinish: recordAiSdkSteps(log),
          }),
        );
        messages.push(...result.response.messages);
      };
      await say('Say sure.');
      await say(); // "go on": the history ends with the assistant's "Sure.", and the model says it again
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

    it('a middleware that drops the tool result is caught as missing_message before the request is sent', async () => {
      const log = new SessionLog();
      appendMessage(log, { role: 'user', content: 'Umbrella in Lisbon?' });
      const sent = server.received.length;
      const run = withSession(log, () =>
        ai.generateText({
          model: model(api, dropToolResults, sessionInvariantMiddleware({ mode: 'strict' })),
          messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }],
          tools: { weather },
          stopWhen: ai.stepCountIs(3),
          maxRetries: 0,
          onStepFinish: recordAiSdkSteps(log),
        }),
      );
      await expect(run).rejects.toBeInstanceOf(SessionInvariantViolation);
      await expect(run).rejects.toMatchObject({ details: { kind: 'missing_message' } });
      expect(await otel.total(VIOLATION_METRIC)).toBe(1);
      expect(server.received.length).toBe(sent + 1);
    });

    it('with the fetch seam observing too (zero code beside the middleware), each request is checked once', async () => {
      const stop = fetchIntegration.start!();
      try {
        const log = new SessionLog();
        appendMessage(log, { role: 'user', content: 'Umbrella in Lisbon?' });
        await withSession(log, () =>
          ai.generateText({
            model: model(api, sessionInvariantMiddleware({ mode: 'strict' })),
            messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }],
            tools: { weather },
            stopWhen: ai.stepCountIs(5),
            maxRetries: 0,
            onStepFinish: recordAiSdkSteps(log),
          }),
        );
        expect(await otel.total(CHECKS_METRIC)).toBe(2);
        expect(await otel.total(VIOLATION_METRIC)).toBe(0);
      } finally {
        stop();
      }
    });

    it('a retry of a failed attempt is one checked request', async () => {
      const log = new SessionLog();
      appendMessage(log, { role: 'user', content: 'hi' });
      server.failNext(1);
      const result = await withSession(log, () =>
        ai.generateText({
          model: model(api, sessionInvariantMiddleware({ mode: 'strict' })),
          messages: [{ role: 'user', content: 'hi' }],
          maxRetries: 1,
        }),
      );
      expect(result.text).toMatch(/^answer/);
      expect(await otel.total(CHECKS_METRIC)).toBe(1);
      expect(await otel.total(VIOLATION_METRIC)).toBe(0);
    });
  });

  it(`the middleware and the step recorder type-check against ai ${major}'s own types (tsc over test/versions/ai-sdk-${major}/middleware-types.ts)`, async () => {
    const run = await runNode([join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], {}, { timeoutMs: 60_000 });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.code).toBe(0);
  }, 60_000);
});
