// `manuallyInstrument` in process, on the real SDKs: a build no require hook
// saw (openai's ES module build) is patched when given, once however often
// it is given and whether or not the require hook patched it too, and each
// request is then checked once; the client class itself is taken as well as
// its module; a value that is no such module, or an unknown key, is warned
// about and left alone; `disable()` and `enable()` take the given modules
// with them.

import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { isWrapped } from '@opentelemetry/instrumentation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionLog, VIOLATION_METRIC, withSession } from '../../src/index';
import { SessionInvariantInstrumentation } from '../../src/instrumentation';
import { toOpenAIChat } from '../../src/adapters';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { BEDROCK_ROOT } from '../support/fake-bedrock';
import { requireSdk, useInstrumentedProvider, type OpenAIModule } from '../support/instrumented';
import { captureWarnings } from '../support/warnings';

const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();
/** openai's ES module build (index.mjs), imported natively: a class of its own, which the require hook never saw. */
let esm: OpenAIModule;

/** The ES module build beside a package's CommonJS main (`index.mjs` next to `index.js`). */
function esmBuildOf(name: string): string {
  return requireSdk.resolve(name).replace(/index\.js$/, 'index.mjs');
}

beforeAll(async () => {
  esm = (await import(esmBuildOf('openai'))) as OpenAIModule;
});
afterAll(() => {
  // The suite's instrumentation is the one in force again.
  suite.env.instrumentation.enable();
});

type Prototype = Record<string, unknown>;

/** The prototype that defines `prepareOptions` for `client` (openai's own, or Anthropic's base class). */
function seamOf(client: unknown): Prototype & { prepareOptions: { __original?: unknown } } {
  let proto = (client as { prototype: object }).prototype;
  while (!Object.prototype.hasOwnProperty.call(proto, 'prepareOptions')) proto = Object.getPrototypeOf(proto) as object;
  return proto as Prototype & { prepareOptions: { __original?: unknown } };
}

/** Wrapped, and by one wrapper only: what it wraps is the SDK's own method. */
function wrappedOnce(method: { __original?: unknown }): boolean {
  return isWrapped(method) && !isWrapped(method.__original);
}

function weatherLog(): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'You are a weather bot.' });
  log.append('user_message', { content: `Umbrella in Lisbon? ${Math.random()}` });
  log.append('assistant_message', { content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }] });
  log.append('tool_result', { content: '{"rain":true}', toolCallId: 'call_1', name: 'get_weather' });
  return log;
}

/** One request through `OpenAI` against a bound log, the tool result dropped; the checks and violations it added. */
async function droppedResult(OpenAI: OpenAIModule['OpenAI']): Promise<{ checks: number; violations: number }> {
  const [checks, violations] = [await suite.env.otel.total(CHECKS_METRIC), await suite.env.otel.total(VIOLATION_METRIC)];
  const client = new OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
  const log = weatherLog();
  const messages = toOpenAIChat(log.deriveMessages()).filter((m) => m.role !== 'tool');
  await withSession(log, () => client.chat.completions.create({ model: 'gpt-test', messages }));
  return {
    checks: (await suite.env.otel.total(CHECKS_METRIC)) - checks,
    violations: (await suite.env.otel.total(VIOLATION_METRIC)) - violations,
  };
}

describe('manuallyInstrument', () => {
  it('patches a build the require hook never saw, once, however often it is given and in whatever form', async () => {
    expect(esm.OpenAI).not.toBe(suite.env.openai.OpenAI);
    expect(isWrapped(seamOf(esm.OpenAI).prepareOptions)).toBe(false);
    const { instrumentation } = suite.env;
    instrumentation.manuallyInstrument({ openai: esm });
    instrumentation.manuallyInstrument({ openai: esm });
    instrumentation.manuallyInstrument({ openai: esm.OpenAI }); // the class, as `import OpenAI from 'openai'` gives it
    instrumentation.manuallyInstrument({ openai: suite.env.openai }); // the CommonJS build, which the require hook patched
    for (const client of [esm.OpenAI, suite.env.openai.OpenAI]) {
      const proto = seamOf(client);
      for (const method of ['prepareOptions', 'prepareRequest', 'fetchWithTimeout', 'retryRequest']) {
        expect(wrappedOnce(proto[method] as { __original?: unknown }), method).toBe(true);
      }
    }
    // Checked at the client hook (against the bound log, in prepareOptions): a second wrapper would check it twice.
    expect(await droppedResult(esm.OpenAI)).toEqual({ checks: 1, violations: 1 });
    expect(await droppedResult(suite.env.openai.OpenAI)).toEqual({ checks: 1, violations: 1 });
    // One line per dropping request, nothing about the modules given.
    expect(warn.mock.calls.map(([message]) => String(message).slice(0, 48))).toEqual(
      Array(2).fill('session invariant violation: missing_message: th'),
    );
  });

  it('patches the ES module builds of @anthropic-ai/sdk (a class with no static self-reference) and groq-sdk, by module or by class', async () => {
    const anthropic = (await import(esmBuildOf('@anthropic-ai/sdk'))) as { Anthropic: object };
    const groq = (await import(esmBuildOf('groq-sdk'))) as { Groq: object };
    expect(anthropic.Anthropic).not.toBe((requireSdk('@anthropic-ai/sdk') as { Anthropic: object }).Anthropic);
    expect(isWrapped(seamOf(anthropic.Anthropic).prepareOptions)).toBe(false);
    expect(isWrapped(seamOf(groq.Groq).prepareOptions)).toBe(false);
    suite.env.instrumentation.manuallyInstrument({ anthropic: anthropic.Anthropic, groq });
    suite.env.instrumentation.manuallyInstrument({ anthropic, groq: groq.Groq });
    expect(wrappedOnce(seamOf(anthropic.Anthropic).prepareOptions)).toBe(true);
    expect(wrappedOnce(seamOf(anthropic.Anthropic).backendMiddleware as { __original?: unknown })).toBe(true);
    expect(wrappedOnce(seamOf(groq.Groq).prepareOptions)).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('takes the Bedrock client the require hook patched, by module and by class, and leaves one wrapper', () => {
    const bedrock = createRequire(resolve(BEDROCK_ROOT, 'package.json'))('@aws-sdk/client-bedrock-runtime') as {
      BedrockRuntimeClient: { prototype: { send: { __original?: unknown } } };
    };
    suite.env.instrumentation.manuallyInstrument({ bedrock });
    suite.env.instrumentation.manuallyInstrument({ bedrock: bedrock.BedrockRuntimeClient });
    expect(wrappedOnce(bedrock.BedrockRuntimeClient.prototype.send)).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('warns once about a value that holds no client of its SDK, an unknown key and an argument that is no object, and patches nothing', () => {
    const { instrumentation } = suite.env;
    const anthropic = requireSdk('@anthropic-ai/sdk') as object;
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no reading');
        },
      },
    );
    instrumentation.manuallyInstrument({ openai: {}, groq: 42 as unknown as object, bedrock: anthropic });
    instrumentation.manuallyInstrument({ anthropic: hostile });
    instrumentation.manuallyInstrument({ cohere: {} } as object);
    instrumentation.manuallyInstrument(null as unknown as object);
    instrumentation.manuallyInstrument({ openai: {} });
    const lines = warn.mock.calls.map(([message]) => String(message));
    expect(lines).toEqual([
      'manuallyInstrument: the value given as openai is neither the openai module nor its client class; it is not patched',
      'manuallyInstrument: the value given as groq is neither the groq-sdk module nor its client class; it is not patched',
      'manuallyInstrument: the value given as bedrock is neither the @aws-sdk/client-bedrock-runtime module nor its client class; it is not patched',
      'manuallyInstrument: the value given as anthropic is neither the @anthropic-ai/sdk module nor its client class; it is not patched',
      'manuallyInstrument: cohere is not one of the SDKs it patches (openai, anthropic, groq, bedrock); it is ignored (an SDK that calls fetch needs no entry: the fetch seam checks it)',
      'manuallyInstrument takes an object of SDK modules by name ({ openai, anthropic, groq, bedrock }); nothing was patched',
    ]);
  });

  it('disable() unpatches the modules given, enable() patches them again; a disabled instrumentation patches them at enable()', () => {
    const { instrumentation } = suite.env;
    instrumentation.manuallyInstrument({ openai: esm });
    instrumentation.disable();
    expect(isWrapped(seamOf(esm.OpenAI).prepareOptions)).toBe(false);
    instrumentation.enable();
    expect(wrappedOnce(seamOf(esm.OpenAI).prepareOptions)).toBe(true);

    instrumentation.disable();
    const later = new SessionInvariantInstrumentation({ enabled: false });
    later.manuallyInstrument({ openai: esm });
    expect(isWrapped(seamOf(esm.OpenAI).prepareOptions)).toBe(false);
    later.enable();
    expect(wrappedOnce(seamOf(esm.OpenAI).prepareOptions)).toBe(true);
    later.disable();
    expect(isWrapped(seamOf(esm.OpenAI).prepareOptions)).toBe(false);
  });
});
