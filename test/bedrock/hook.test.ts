// The Bedrock hook in process, on the real client: an InvokeModel request (a
// body in the model's own format, which no reader here reads) is named once
// in a warning, so that silence means checked; a Converse request is checked
// and warns nothing.

import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { BEDROCK_ROOT, startFakeBedrock, type FakeBedrock } from '../support/fake-bedrock';
import { useInstrumentedProvider } from '../support/instrumented';
import { captureWarnings } from '../support/warnings';

const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();
let bedrock: FakeBedrock;

beforeAll(async () => {
  bedrock = await startFakeBedrock();
});
afterAll(() => bedrock.close());

interface BedrockModule {
  BedrockRuntimeClient: new (config: object) => { send(command: object): Promise<unknown> };
  ConverseCommand: new (input: object) => object;
  InvokeModelCommand: new (input: object) => object;
}

function client() {
  const sdk = createRequire(resolve(BEDROCK_ROOT, 'package.json'))('@aws-sdk/client-bedrock-runtime') as BedrockModule;
  const bedrockClient = new sdk.BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: bedrock.url,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    maxAttempts: 1,
  });
  return { sdk, bedrockClient };
}

it('an InvokeModel request is named once in a warning; a Converse request is checked and warns nothing', async () => {
  const { sdk, bedrockClient } = client();
  const invoke = () =>
    bedrockClient
      .send(new sdk.InvokeModelCommand({ modelId: 'anthropic.claude-test', body: JSON.stringify({ messages: [] }) }))
      .catch(() => undefined); // the loopback server serves Converse only
  await invoke();
  await invoke();
  const unread = warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('InvokeModelCommand'));
  expect(unread).toHaveLength(1);
  expect(unread[0]).toContain('its requests are not checked');

  warn.mockReset();
  const checks = await suite.env.otel.total(CHECKS_METRIC);
  await bedrockClient.send(
    new sdk.ConverseCommand({ modelId: 'anthropic.claude-test', messages: [{ role: 'user', content: [{ text: `Hi ${Math.random()}` }] }] }),
  );
  expect((await suite.env.otel.total(CHECKS_METRIC)) - checks).toBe(1);
  expect(warn).not.toHaveBeenCalled();
});
