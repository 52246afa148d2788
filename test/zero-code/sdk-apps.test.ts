// Unmodified apps (they never import this package), started with only the
// `--require nous-session-invariant/register` line and exporting over OTLP:
// a correct loop stays silent, each history bug is reported once, with its
// kind, against the implicit conversation.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { PACKAGE_ROOT } from '../support/run-node';
import { runZeroCodeApp, type ZeroCodeRun } from '../support/zero-code-app';
import { FAULTS } from '../support/faults';

let provider: FakeProvider;
/** A provider whose Responses tool calls come after a short text item. */
let preambleProvider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
  preambleProvider = await startFakeProvider({ responsesPreamble: true });
});
afterAll(async () => {
  await provider.close();
  await preambleProvider.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/** Runs a fixture app of test/fixtures/zero-code (with the SDK_ROOT the run was given, if any). */
function runApp(app: string, env: Record<string, string>): Promise<ZeroCodeRun> {
  const sdkRoot: Record<string, string> = process.env.SDK_ROOT ? { SDK_ROOT: process.env.SDK_ROOT } : {};
  return runZeroCodeApp(`test/fixtures/zero-code/${app}`, { ...sdkRoot, ...env }, provider, receivers);
}

describe.each([
  { app: 'openai-chat.cjs', stream: '0' },
  { app: 'openai-chat.cjs', stream: '1' },
])('openai chat completions, zero code (stream $stream)', ({ app, stream }) => {
  it.concurrent('a correct tool loop stays silent, every request checked against the implicit log', async () => {
    const result = await runApp(app, { STREAM: stream });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.logs).toEqual(['implicit']);
  });

  it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
    const result = await runApp(app, { STREAM: stream, FAULT: fault });
    expect(result.kinds).toEqual([kind]);
  });
});

// n > 1: every choice is a reply the model sent; the app continues with the second (docs/behaviour.md §8.4).
describe.each(['0', '1'])('openai chat completions with two choices, continuing with the second, zero code (stream %s)', (stream) => {
  const env = { STREAM: stream, CHOICES: '2', PICK: '1' };
  it.concurrent('a correct tool loop stays silent', async () => {
    const result = await runApp('openai-chat.cjs', env);
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  it.concurrent.each(stream === '0' ? FAULTS : FAULTS.filter(([fault]) => fault === 'drop-last-reply'))(
    '%s is reported once as %s',
    async (fault, kind) => {
      expect((await runApp('openai-chat.cjs', { ...env, FAULT: fault })).kinds).toEqual([kind]);
    },
  );
});

describe('openai responses, zero code', () => {
  it.concurrent('a correct tool loop re-sending response items stays silent', async () => {
    const result = await runApp('openai-responses.cjs', {});
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  // Function calls join the assistant message item before them: the reordered answer, moved in front of
  // the next turn's calls, becomes part of another message, so the reorder reports as missing_message.
  const responsesFaults = FAULTS.map(([fault, kind]): [string, string] => [fault, fault === 'reorder' ? 'missing_message' : kind]);
  it.concurrent.each(responsesFaults)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('openai-responses.cjs', { FAULT: fault })).kinds).toEqual([kind]);
  });
});

// Tool loops chained with previous_response_id, each new question re-sending the whole history: the turns the
// provider held were replies the model sent (docs/behaviour.md §8.5).
describe('openai responses chained with previous_response_id, then re-sent in full, zero code', () => {
  it.concurrent('a correct tool loop stays silent; the chained requests are followed, not checked', async () => {
    const result = await runApp('openai-responses.cjs', { CHAIN: '1' });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(5);
  });

  const responsesFaults = FAULTS.map(([fault, kind]): [string, string] => [fault, fault === 'reorder' ? 'missing_message' : kind]);
  it.concurrent.each(responsesFaults)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('openai-responses.cjs', { CHAIN: '1', FAULT: fault })).kinds).toEqual([kind]);
  });
});

// The same on an Anthropic message thread: the tool loop continues the thread, each new question starts a new thread
// over the whole history (docs/behaviour.md §8.5).
describe('anthropic message threads, each question re-sending the whole history under a new thread, zero code', () => {
  it.concurrent('a correct tool loop stays silent; the continued requests are followed, not checked', async () => {
    const result = await runApp('anthropic-thread.cjs', {});
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(5);
  });

  it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('anthropic-thread.cjs', { FAULT: fault })).kinds).toEqual([kind]);
  });
});

describe.each(['0', '1'])('anthropic messages, zero code (stream %s)', (stream) => {
  it.concurrent('a correct tool loop with moving cache_control markers and a prefill stays silent', async () => {
    const result = await runApp('anthropic-messages.cjs', { STREAM: stream });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(12);
  });

  it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('anthropic-messages.cjs', { STREAM: stream, FAULT: fault })).kinds).toEqual([kind]);
  });
});

describe.each(['chat', 'responses'])('Vercel AI SDK, zero code (%s API)', (api) => {
  const faults = FAULTS.filter(([fault]) => fault !== 'drop-last-reply');
  it.concurrent('a correct multi-step tool loop stays silent', async () => {
    const result = await runApp('ai-sdk.mjs', { API: api });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  it.concurrent("the app's middleware trimming old tool results is caught in what the provider is sent", async () => {
    // Each later request trims one more result the model saw whole: four rewrites, each reported.
    const result = await runApp('ai-sdk.mjs', { API: api, FAULT: 'middleware-trims-tool-results' });
    expect(result.kinds).toEqual(Array(4).fill('missing_message'));
  });

  // The AI SDK refers to stored replies (item_reference) instead of re-sending them: no regrouping, a reorder is an order.
  it.concurrent.each(faults)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('ai-sdk.mjs', { API: api, FAULT: fault })).kinds).toEqual([kind]);
  });

  it.concurrent("a prepareStep that sends step 2 without step 1's tool call is reported once as a lost reply", async () => {
    expect((await runApp('ai-sdk.mjs', { API: api, FAULT: 'prepare-step-drops-call' })).kinds).toEqual(['missing_message']);
  });
});

// AI SDK 5 and 6 have no `ai:telemetry` channel: their providers' requests are checked at the fetch seam alone,
// from the fixture projects test/versions/ai-sdk-5 and -6 (the test run installs it).
const aiSdkEnv = (major: number, api: string) => ({ SDK_ROOT: `test/versions/ai-sdk-${major}`, API: api });

describe.each([5, 6])('Vercel AI SDK %i, zero code', (major) => {
  it.concurrent(`has its fixture installed (ai ${major})`, () => {
    const manifest = join(PACKAGE_ROOT, aiSdkEnv(major, '').SDK_ROOT, 'node_modules/ai/package.json');
    expect(existsSync(manifest)).toBe(true);
    expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version).toMatch(new RegExp(`^${major}\\.`));
  });
});

describe.each([
  { major: 5, api: 'chat' },
  { major: 5, api: 'responses' },
  { major: 6, api: 'chat' },
  { major: 6, api: 'responses' },
])('Vercel AI SDK $major, zero code ($api API)', ({ major, api }) => {
  const env = aiSdkEnv(major, api);
  it.concurrent('a correct multi-step tool loop stays silent, each request checked once at the fetch seam', async () => {
    const result = await runApp('ai-sdk.mjs', env);
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.logs).toEqual(['implicit']);
  });

  it.concurrent("the app's middleware trimming old tool results is caught in what the provider is sent", async () => {
    const result = await runApp('ai-sdk.mjs', { ...env, FAULT: 'middleware-trims-tool-results' });
    expect(result.kinds).toEqual(Array(4).fill('missing_message'));
  });

  it.concurrent.each(FAULTS.filter(([fault]) => fault !== 'drop-last-reply'))('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('ai-sdk.mjs', { ...env, FAULT: fault })).kinds).toEqual([kind]);
  });

  // No channel on 5 and 6: each generateText call is made a run by wrapping the ai module, as the channel does on 7.
  it.concurrent("a prepareStep that sends step 2 without step 1's tool call is reported once as a lost reply", async () => {
    expect((await runApp('ai-sdk.mjs', { ...env, FAULT: 'prepare-step-drops-call' })).kinds).toEqual(['missing_message']);
  });
});

describe.each([5, 6])('Vercel AI SDK %i, zero code (chat API, streamText)', (major) => {
  const env = { ...aiSdkEnv(major, 'chat'), STREAM: '1' };
  it.concurrent('a correct multi-step tool loop stays silent, each request checked once at the fetch seam', async () => {
    const result = await runApp('ai-sdk.mjs', env);
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  // An invented reply is caught only where the replies are observed (docs/behaviour.md §8.4): here, read from the stream.
  it.concurrent.each(FAULTS.filter(([fault]) => fault === 'duplicate' || fault === 'invent-reply'))(
    '%s is reported once as %s',
    async (fault, kind) => {
      expect((await runApp('ai-sdk.mjs', { ...env, FAULT: fault })).kinds).toEqual([kind]);
    },
  );
});

// Models often say something before a tool call ("Let me check."): one reply message made of a message item and a
// function call item. AI SDK 6 and 7 then refer to the message item and re-send the call inline; AI SDK 5 refers to
// both items; the openai app re-sends both as they came. Each form stands for the one message the model sent.
describe.each<{ app: string; env: Record<string, string>; name: string }>([
  { app: 'ai-sdk.mjs', env: { API: 'responses' }, name: 'AI SDK 7' },
  { app: 'ai-sdk.mjs', env: aiSdkEnv(6, 'responses'), name: 'AI SDK 6' },
  { app: 'ai-sdk.mjs', env: aiSdkEnv(5, 'responses'), name: 'AI SDK 5' },
  { app: 'openai-responses.cjs', env: {}, name: 'openai' },
])('Responses API with text before each tool call, zero code ($name)', ({ app, env }) => {
  it.concurrent('a correct tool loop stays silent, every request checked', async () => {
    const result = await runApp(app, { ...env, FAKE_PROVIDER_URL: preambleProvider.openaiBaseURL });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  it.concurrent.each(FAULTS.filter(([fault]) => fault === 'drop-old-turn' || fault === 'duplicate'))(
    '%s is reported once as %s',
    async (fault, kind) => {
      expect((await runApp(app, { ...env, FAULT: fault, FAKE_PROVIDER_URL: preambleProvider.openaiBaseURL })).kinds).toEqual([kind]);
    },
  );
});

describe('OpenAI Agents SDK, zero code', () => {
  it.concurrent('a correct tool loop, run after run, stays silent', async () => {
    const result = await runApp('openai-agents.cjs', {});
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  it.concurrent.each(FAULTS.filter(([fault]) => fault !== 'drop-last-reply'))('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('openai-agents.cjs', { FAULT: fault })).kinds).toEqual([fault === 'reorder' ? 'missing_message' : kind]);
  });
});

describe.each(['chat', 'react', 'create-agent'])('LangChain.js on ChatOpenAI, zero code (%s)', (agent) => {
  it.concurrent('has its fixture installed (the test run installs it)', () => {
    expect(existsSync(join(PACKAGE_ROOT, 'test/fixtures/langchain/node_modules/@langchain/openai/package.json'))).toBe(true);
  });

  it.concurrent('a correct tool loop stays silent, every request checked against the implicit log', async () => {
    const result = await runApp('langchain.cjs', { AGENT: agent });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.logs).toEqual(['implicit']);
  });

  it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('langchain.cjs', { AGENT: agent, FAULT: fault })).kinds).toEqual([kind]);
  });
});

// Clients on the fetch seam with their own loop, streamed or not: `@mistralai/mistralai` sends `fetch(new Request(url,
// init))`, which the seam reads; `ollama` speaks its own API, whose replies stream as NDJSON (the client stops reading
// at `done: true`).
describe.each([
  { sdk: '@mistralai/mistralai chat', app: 'mistral.mjs', provider: 'mistral_ai' },
  { sdk: 'ollama chat (/api/chat)', app: 'ollama.cjs', provider: 'ollama' },
  { sdk: 'cohere-ai v2 chat (/v2/chat)', app: 'cohere.cjs', provider: 'cohere' },
])('$sdk, zero code', ({ app, provider }) => {
  describe.each(['0', '1'])('stream %s', (stream) => {
    it.concurrent(`a correct tool loop stays silent, every request checked as ${provider}`, async () => {
      const result = await runApp(app, { STREAM: stream });
      expect(result.kinds).toEqual([]);
      expect(result.checks).toBe(10);
      expect(result.providers).toEqual([provider]);
    });

    it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
      expect((await runApp(app, { STREAM: stream, FAULT: fault })).kinds).toEqual([kind]);
    });
  });
});
