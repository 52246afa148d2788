// The instrumentation on the real OTel SDK, with the provider SDKs loaded
// through `require` after it is enabled, as `--require .../register` does.

import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { SessionLog, setLogger, withSession } from '../../src/index';
import { resetWarnings } from '../../src/warnings';
import { SessionInvariantInstrumentation, type SessionInvariantInstrumentationConfig } from '../../src/instrumentation';
import { startFakeProvider, type FakeProvider } from './fake-provider';
import { registerOtel, type OtelHarness } from './otel';

/**
 * `require` for the hooked SDKs: from this package, or, with SDK_ROOT set, from
 * a fixture folder holding other versions (the version matrix, `npm run test:versions`).
 */
export const requireSdk = createRequire(process.env.SDK_ROOT ? resolve(process.env.SDK_ROOT, 'package.json') : __filename);

export type OpenAIModule = typeof import('openai');
export type AnthropicModule = typeof import('@anthropic-ai/sdk');

export interface Instrumented {
  otel: OtelHarness;
  instrumentation: SessionInvariantInstrumentation;
  openai: OpenAIModule;
  anthropic: AnthropicModule;
}

export function instrument(config: SessionInvariantInstrumentationConfig = {}): Instrumented {
  const otel = registerOtel();
  const instrumentation = new SessionInvariantInstrumentation(config);
  instrumentation.setTracerProvider(otel.tracerProvider);
  instrumentation.setMeterProvider(otel.meterProvider);
  const openai = requireSdk('openai') as OpenAIModule;
  const anthropic = requireSdk('@anthropic-ai/sdk') as AnthropicModule;
  return { otel, instrumentation, openai, anthropic };
}

/**
 * The instrumentation enabled by each test that asks, in the mode it asks for
 * (the returned `enable`), on the providers of `otel()`; disabled after the
 * test. Warnings are reset before each test and not printed during it.
 */
export function useModePerTest(otel: () => OtelHarness): (mode?: 'warn' | 'strict') => void {
  let instrumentation: SessionInvariantInstrumentation | undefined;
  beforeEach(() => {
    resetWarnings();
    setLogger({ warn: () => {} });
  });
  afterEach(() => {
    instrumentation?.disable();
    instrumentation = undefined;
    setLogger(null);
  });
  return (mode = 'warn') => {
    instrumentation = new SessionInvariantInstrumentation({ mode });
    instrumentation.setTracerProvider(otel().tracerProvider);
    instrumentation.setMeterProvider(otel().meterProvider);
  };
}

export interface InstrumentedSuite {
  server: FakeProvider;
  env: Instrumented;
}

/**
 * A fake provider on loopback and the instrumentation on the real SDK for a
 * whole test file: started before, torn down after, spans cleared between
 * tests. Read the fields inside tests (they are set in beforeAll).
 */
export function useInstrumentedProvider(config: SessionInvariantInstrumentationConfig = {}): InstrumentedSuite {
  const suite = {} as InstrumentedSuite;
  beforeAll(async () => {
    suite.server = await startFakeProvider();
    suite.env = instrument(config);
  });
  afterAll(async () => {
    suite.env.instrumentation.disable();
    await suite.env.otel.teardown();
    await suite.server.close();
  });
  beforeEach(() => suite.env.otel.spans.reset());
  return suite;
}

/**
 * One request through the real `openai` client with a user message the bound
 * `log` does not hold after the first: an `extra_message` when `log` holds
 * only `Umbrella in Lisbon?`. `options` go to `withSession` as given (hostile
 * values included).
 */
export async function ghostRequest(
  suite: InstrumentedSuite,
  log: SessionLog,
  options: { conversationId?: unknown; agentName?: unknown },
  text: string,
): Promise<void> {
  const client = new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
  await withSession(
    log,
    () =>
      client.chat.completions.create({
        model: 'gpt-test',
        messages: [
          { role: 'user', content: 'Umbrella in Lisbon?' },
          { role: 'user', content: text },
        ],
      }),
    options as { conversationId?: string; agentName?: string },
  );
}
