// @mistralai/mistralai in strict mode: its client sends `fetch(new Request(...))`,
// which the fetch seam reads; a broken request is refused before it is sent,
// one attempt (the client retries no thrown fetch by default), and the
// caller's error carries the violation as its cause. A last assistant message
// with `prefix: true` (a prefill the model continues) is no violation.

import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionInvariantViolation, VIOLATION_METRIC, setLogger } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { resetWarnings } from '../../src/warnings';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { instrument, type Instrumented } from '../support/instrumented';

type Message = { role: 'system' | 'user' | 'assistant'; content: string | null; prefix?: boolean };
interface MistralClient {
  chat: { complete(request: { model: string; messages: Message[] }): Promise<{ choices: Array<{ message: { content: string | null } }> }> };
}

let server: FakeProvider;
let env: Instrumented;
let Mistral: new (options: { apiKey: string; serverURL: string }) => MistralClient;

beforeAll(async () => {
  server = await startFakeProvider();
  env = instrument({ mode: 'strict' });
  const fixture = createRequire(resolve(__dirname, '../fixtures/mistral/package.json'));
  ({ Mistral } = (await import(fixture.resolve('@mistralai/mistralai'))) as { Mistral: typeof Mistral });
});
beforeEach(() => {
  resetWarnings();
  setLogger({ warn: () => {} });
});
afterAll(async () => {
  setLogger(null);
  env.instrumentation.disable();
  await env.otel.teardown();
  await server.close();
});

const client = () => new Mistral({ apiKey: 'k', serverURL: server.url });

describe('@mistralai/mistralai, strict mode', () => {
  it('refuses a dropped reply before it is sent, one attempt, the violation as the cause', async () => {
    const mistral = client();
    const history: Message[] = [{ role: 'user', content: `Umbrella? ${Math.random()}` }];
    for (const question of ['And in Porto?', 'And in Faro?']) {
      const reply = await mistral.chat.complete({ model: 'mistral-test', messages: history });
      history.push({ role: 'assistant', content: reply.choices[0]!.message.content }, { role: 'user', content: question });
    }
    const sent = server.received.length;
    const [checks, violations] = [await env.otel.total(CHECKS_METRIC), await env.otel.total(VIOLATION_METRIC)];
    const thrown = await mistral.chat.complete({ model: 'mistral-test', messages: history.filter((_, i) => i !== 1) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((thrown as { cause?: unknown }).cause).toBeInstanceOf(SessionInvariantViolation);
    expect(server.received.length).toBe(sent);
    expect((await env.otel.total(CHECKS_METRIC)) - checks).toBe(1);
    expect((await env.otel.total(VIOLATION_METRIC)) - violations).toBe(1);
  });

  it('a prefix message (prefill) ending the request passes', async () => {
    const mistral = client();
    const before = await env.otel.total(VIOLATION_METRIC);
    const history: Message[] = [{ role: 'user', content: `Write a haiku ${Math.random()}` }];
    await mistral.chat.complete({ model: 'mistral-test', messages: [...history, { role: 'assistant', content: 'Rain on', prefix: true }] });
    expect((await env.otel.total(VIOLATION_METRIC)) - before).toBe(0);
  });
});
