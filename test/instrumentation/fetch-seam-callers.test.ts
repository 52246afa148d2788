// Who a request is from and to. A request through OpenAI's wire format is
// named for the provider that serves it (by host, else by SDK), `openai`
// only for OpenAI; groq-sdk is hooked like openai and each of its requests
// is counted once (strict mode: strict-refusal.test.ts); and a
// POST from a known model SDK that no wire format reads gives one warning
// naming the SDK, so that silence means checked.

import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setLogger } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { resetWarnings } from '../../src/warnings';
import { providerName, sdkOf } from '../../src/integrations/fetch/callers';
import { instrument, requireSdk, type Instrumented } from '../support/instrumented';

type GroqModule = typeof import('groq-sdk');
type OllamaModule = typeof import('ollama');

/** A loopback server answering Chat Completions on any path ending in `completions` (Mistral's agents too), and Ollama's embed. */
let server: Server;
let base: string;
const received: string[] = [];
let env: Instrumented;
let Groq: GroqModule['default'];
let Ollama: OllamaModule['Ollama'];
const warnings: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(req.url ?? '');
      const path = (req.url ?? '').split('?')[0]!;
      const answer = path.endsWith('/completions')
        ? {
            id: `c${received.length}`,
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: `Answer ${received.length}` }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }
        : path === '/api/embed'
          ? { model: 'm', embeddings: [[0.1, 0.2]] }
          : { model: 'm', created_at: '2026-01-01T00:00:00Z', response: 'Hi', done: true };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = instrument({ mode: 'strict' });
  Groq = (requireSdk('groq-sdk') as GroqModule).default;
  Ollama = (requireSdk('ollama') as OllamaModule).Ollama;
});
beforeEach(() => {
  resetWarnings();
  warnings.length = 0;
  setLogger({ warn: (message) => warnings.push(message) });
});
afterAll(async () => {
  setLogger(null);
  env.instrumentation.disable();
  await env.otel.teardown();
  await new Promise((resolve) => server.close(resolve));
});

describe('the provider a request is named for (gen_ai.provider.name)', () => {
  const chat = (host: string) => new URL(`https://${host}/v1/chat/completions`);
  it.each([
    ['api.openai.com', 'openai'],
    ['my-resource.openai.azure.com', 'azure.ai.openai'],
    ['api.groq.com', 'groq'],
    ['api.mistral.ai', 'mistral_ai'],
    ['api.deepseek.com', 'deepseek'],
    ['api.together.xyz', 'together_ai'],
    ['openrouter.ai', 'openrouter'],
    ['api.x.ai', 'x_ai'],
    ['generativelanguage.googleapis.com', 'gcp.gemini'],
  ])('by host: %s is %s, whatever the SDK', (host, provider) => {
    expect(
      providerName(
        chat(host),
        sdkOf(() => 'OpenAI/JS 7.59.0'),
        'openai',
      ),
    ).toBe(provider);
  });

  it("Ollama's port names ollama; an unknown host is the SDK's provider, else the wire format's", () => {
    expect(providerName(new URL('http://localhost:11434/v1/chat/completions'), undefined, 'openai')).toBe('ollama');
    const header = (agent: string) => (name: string) => (name === 'user-agent' ? agent : null);
    const local = new URL('http://10.0.0.7:8000/v1/chat/completions');
    expect(providerName(local, sdkOf(header('Groq/JS 1.6.0')), 'openai')).toBe('groq');
    expect(providerName(local, sdkOf(header('mistral-client-typescript/2.7.0')), 'openai')).toBe('mistral_ai');
    expect(providerName(local, sdkOf(header('ai/6.0.1 ai-sdk/provider-utils/4.0.1 ai-sdk/deepseek/2.0.3')), 'openai')).toBe('deepseek');
    expect(providerName(local, sdkOf(header('node')), 'openai')).toBe('openai');
  });
});

describe('groq-sdk (hooked like openai)', () => {
  const client = () => new Groq({ apiKey: 'k', baseURL: base });
  type Message = { role: 'user' | 'assistant'; content: string };

  it('a correct loop: each request checked once, named groq', async () => {
    const groq = client();
    const history: Message[] = [{ role: 'user', content: `Hello ${Math.random()}` }];
    const before = await env.otel.total(CHECKS_METRIC);
    for (const question of ['And then?', 'Thanks.']) {
      const reply = await groq.chat.completions.create({ model: 'm', messages: history });
      history.push({ role: 'assistant', content: reply.choices[0]!.message.content! }, { role: 'user', content: question });
    }
    await groq.chat.completions.create({ model: 'm', messages: history });
    expect((await env.otel.total(CHECKS_METRIC)) - before).toBe(3);
    const points = (await env.otel.points(CHECKS_METRIC)).filter((p) => p.attributes['gen_ai.provider.name'] === 'groq');
    expect(points.reduce((n, p) => n + p.value, 0)).toBeGreaterThanOrEqual(3);
  });
});

describe('the openai client hook names the provider its baseURL serves', () => {
  it.each([
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://api.mistral.ai/v1', 'mistral_ai'],
    ['https://api.together.xyz/v1', 'together_ai'],
    ['http://localhost:11434/v1', 'ollama'],
    ['https://api.openai.com/v1', 'openai'],
  ])('an openai client on %s is %s', async (baseURL, provider) => {
    const { OpenAI } = requireSdk('openai') as typeof import('openai');
    // The client believes it calls baseURL; its own fetch sends the request to the loopback server.
    const origin = new URL(baseURL).origin;
    const client = new OpenAI({
      apiKey: 'k',
      baseURL,
      fetch: (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace(origin, base), init),
    });
    const named = async () =>
      (await env.otel.points(CHECKS_METRIC))
        .filter((p) => p.attributes['gen_ai.provider.name'] === provider)
        .reduce((n, p) => n + p.value, 0);
    const before = await named();
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `Hi ${Math.random()}` }] });
    expect((await named()) - before).toBe(1);
  });

  it('follows a client whose baseURL is changed between calls (the name is kept per client and baseURL, not for ever)', async () => {
    const { OpenAI } = requireSdk('openai') as typeof import('openai');
    const origins = ['https://api.groq.com', 'https://api.mistral.ai'];
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: 'https://api.groq.com/openai/v1',
      fetch: (url: string | URL | Request, init?: RequestInit) =>
        fetch(
          origins.reduce((sent, origin) => sent.replace(origin, base), String(url)),
          init,
        ),
    });
    const counted = async (provider: string) =>
      (await env.otel.points(CHECKS_METRIC))
        .filter((p) => p.attributes['gen_ai.provider.name'] === provider)
        .reduce((n, p) => n + p.value, 0);
    const before = { groq: await counted('groq'), mistral: await counted('mistral_ai') };
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `Hi ${Math.random()}` }] });
    client.baseURL = 'https://api.mistral.ai/v1';
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `Hi ${Math.random()}` }] });
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `Hi ${Math.random()}` }] });
    expect((await counted('groq')) - before.groq).toBe(1);
    expect((await counted('mistral_ai')) - before.mistral).toBe(2);
  });
});

describe('a POST from a known model SDK that no wire format reads', () => {
  it("gives one warning naming the SDK (Mistral's agents API), and none for a path that carries no conversation (ollama's embed)", async () => {
    const ollama = new Ollama({ host: base });
    await ollama.embed({ model: 'm', input: 'x' });
    expect(warnings).toEqual([]);
    const fixture = createRequire(resolve(__dirname, '../fixtures/mistral/package.json'));
    const { Mistral } = (await import(fixture.resolve('@mistralai/mistralai'))) as {
      Mistral: new (options: { apiKey: string; serverURL: string }) => {
        agents: { complete(request: { agentId: string; messages: Array<{ role: 'user'; content: string }> }): Promise<unknown> };
      };
    };
    const mistral = new Mistral({ apiKey: 'k', serverURL: base });
    await mistral.agents.complete({ agentId: 'a', messages: [{ role: 'user', content: 'Hi' }] });
    await mistral.agents.complete({ agentId: 'a', messages: [{ role: 'user', content: 'Hi again' }] });
    expect(warnings).toEqual([
      '@mistralai/mistralai sent a request this package has no wire format for (POST /v1/agents/completions); its requests like it are not checked',
    ]);
  });

  it('says nothing for a POST no known SDK sent, or for a GET', async () => {
    await (await fetch(`${base}/api/generate`, { method: 'POST', body: '{}' })).text();
    await (await fetch(`${base}/api/generate`, { headers: { 'user-agent': 'ollama-js/0.6.4 (x64 linux Node.js/v22)' } })).text();
    expect(warnings).toEqual([]);
  });
});
