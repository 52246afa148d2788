// AI SDK 5 and 6 publish no `ai:telemetry` channel, so with zero code the
// instrumentation wraps the `ai` module's run functions and agent classes:
// each `generateText`/`streamText` call (or agent `generate`) is one run, as
// on AI SDK 7 (docs/behaviour.md §8.3). Within a run a step's request must
// carry the previous steps' replies: a `prepareStep` that sends step 2
// without step 1's tool call lost a reply (`missing_message`), on every
// version. Unmodified ES module apps under --import, against the real
// packages (test/versions/ai-sdk-5, -6, and the root's ai 7) and the loopback
// provider, with no span around the calls.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { PACKAGE_ROOT, runNode } from './support/run-node';

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());

/** The app: `load(name)` is how it loads a package (import by file URL, or require), given its `sdk` resolver. */
const app = (preamble: string, load: (name: string) => string) => `
${preamble}
const sdk = createRequire(process.env.AI_ROOT + '/package.json');
const ai = ${load('ai')};
const { createOpenAI } = ${load('@ai-sdk/openai')};
const openai = createOpenAI({ apiKey: 'k', baseURL: process.env.FAKE_PROVIDER_URL });
const model = process.env.API === 'responses' ? openai.responses('gpt-test') : openai.chat('gpt-test');
const inputSchema = ai.jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
const weather = ai.tool({ description: 'The weather in a city', inputSchema, execute: async () => ({ rain: true }) });
// FAULT=prepare-step-drops-call: once, step 2 is sent without step 1's tool call (its result kept).
let dropped = false;
const prepareStep = ({ stepNumber, messages }) => {
  if (process.env.FAULT !== 'prepare-step-drops-call' || dropped || stepNumber !== 1) return undefined;
  dropped = true;
  const at = messages.findLastIndex((m) => m.role === 'assistant');
  return { messages: messages.filter((_, i) => i !== at) };
};
const settings = { model, tools: { weather }, stopWhen: ai.stepCountIs(5), maxRetries: 0, prepareStep };
const history = [];
for (const question of ['Umbrella in Lisbon?', 'And in Porto?']) {
  history.push({ role: 'user', content: question });
  let result;
  if (process.env.CALL === 'agent') {
    const Agent = ai.ToolLoopAgent ?? ai.Experimental_Agent;
    result = await new Agent(settings).generate({ messages: history });
  } else if (process.env.CALL === 'streamText') {
    const stream = ai.streamText({ ...settings, system: 'You are a weather bot.', messages: history });
    await stream.consumeStream();
    result = { responseMessages: await stream.responseMessages, response: await stream.response };
  } else {
    result = await ai.generateText({ ...settings, system: 'You are a weather bot.', messages: history });
  }
  // AI SDK 7 keeps the call's messages in \`responseMessages\`; 5 and 6 in \`response.messages\`.
  history.push(...(result.responseMessages ?? result.response.messages));
}
console.log('agent done');
`;
const ESM_APP = app(
  "import { createRequire } from 'node:module';\nimport { pathToFileURL } from 'node:url';",
  (name) => `await import(pathToFileURL(sdk.resolve('${name}')).href)`,
);
const CJS_APP = `(async () => {${app("const { createRequire } = require('node:module');", (name) => `require(sdk.resolve('${name}'))`)}})();`;

async function runApp(env: Record<string, string>, commonjs = false): Promise<string[]> {
  const args = commonjs
    ? ['--require', 'nous-session-invariant/register', '-e', CJS_APP]
    : ['--import', 'nous-session-invariant/register', '--input-type=module', '-e', ESM_APP];
  const run = await runNode(args, {
    FAKE_PROVIDER_URL: provider.openaiBaseURL,
    ...env,
  });
  expect(run.stdout, run.stderr).toContain('agent done');
  return [...run.stderr.matchAll(/session invariant violation[^:\n]*: (\w+)/g)].map((m) => m[1]!);
}

const VERSIONS = [
  { name: 'AI SDK 5', root: join(PACKAGE_ROOT, 'test/versions/ai-sdk-5') },
  { name: 'AI SDK 6', root: join(PACKAGE_ROOT, 'test/versions/ai-sdk-6') },
  { name: 'AI SDK 7', root: PACKAGE_ROOT },
];

describe.each(VERSIONS)('$name, zero code, no span around the calls', ({ root }) => {
  describe.each(['chat', 'responses'])('%s API', (api) => {
    // The fake Responses stream sends no text deltas: streamText on chat only.
    const calls = api === 'chat' ? ['generateText', 'streamText', 'agent'] : ['generateText', 'agent'];
    it.concurrent.each(calls)('%s: a correct multi-step tool loop stays silent', async (call) => {
      expect(await runApp({ AI_ROOT: root, API: api, CALL: call })).toEqual([]);
    });

    it.concurrent.each(calls)("%s: a prepareStep that sends step 2 without step 1's tool call is a lost reply", async (call) => {
      expect(await runApp({ AI_ROOT: root, API: api, CALL: call, FAULT: 'prepare-step-drops-call' })).toEqual(['missing_message']);
    });
  });
});

describe.each(VERSIONS.slice(0, 2))('$name, zero code, a CommonJS app under --require', ({ root }) => {
  it.concurrent("generateText: a correct loop stays silent, and a prepareStep that drops step 1's tool call is a lost reply", async () => {
    expect(await runApp({ AI_ROOT: root, API: 'chat', CALL: 'generateText' }, true)).toEqual([]);
    expect(await runApp({ AI_ROOT: root, API: 'chat', CALL: 'generateText', FAULT: 'prepare-step-drops-call' }, true)).toEqual([
      'missing_message',
    ]);
  });
});
