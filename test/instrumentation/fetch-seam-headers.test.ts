// The fetch seam goes by who sent a request, not by its headers: a request
// that carries a hooked SDK client's version in `x-stainless-package-version`
// but that no hooked client sent (a bundle's own copy of the SDK, or a plain
// fetch copying its headers) is checked there, once, whatever form the caller
// gave its headers in (a Headers instance, an array of pairs, a record); a
// request the hooked client sends is left to its hook (counted once).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { requireSdk, useInstrumentedProvider } from '../support/instrumented';

const suite = useInstrumentedProvider({ mode: 'warn' });
const HEADER = 'x-stainless-package-version';

async function checks(): Promise<number> {
  return await suite.env.otel.total(CHECKS_METRIC);
}

/** Checks counted for one direct fetch of a chat completion with these headers. */
async function checksFor(headers: RequestInit['headers']): Promise<number> {
  const before = await checks();
  const response = await fetch(`${suite.server.openaiBaseURL}/chat/completions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }] }),
  });
  await response.text();
  return (await checks()) - before;
}

describe("fetch seam: requests with a hooked SDK client's headers that the client did not send", () => {
  // The hooked openai's version, which its requests carry.
  const version = () =>
    (JSON.parse(readFileSync(join(dirname(requireSdk.resolve('openai')), 'package.json'), 'utf8')) as { version: string }).version;

  it.each<[string, (v: string) => RequestInit['headers']]>([
    ['a Headers instance', (v) => new Headers({ 'content-type': 'application/json', [HEADER]: v })],
    [
      'an array of pairs',
      (v) => [
        ['content-type', 'application/json'],
        ['X-Stainless-Package-Version', v],
      ],
    ],
    ['a record, any case, padded', (v) => ({ 'content-type': 'application/json', 'X-STAINLESS-Package-Version': ` ${v}\t` })],
  ])('are checked by the fetch seam when the headers are %s', async (_, headersFor) => {
    expect(await checksFor(headersFor(version()))).toBe(1);
  });

  it.each<[string, RequestInit['headers']]>([
    ['no version header', { 'content-type': 'application/json' }],
    ['a version no hooked client has', { 'content-type': 'application/json', [HEADER]: '0.0.0-not-hooked' }],
    ['an array with that version', [[HEADER, '0.0.0-not-hooked']]],
    [
      'the version twice (joined, as Headers does: no hooked client has it)',
      [
        [HEADER, '1.0.0'],
        [HEADER, '1.0.0'],
      ],
    ],
    ['no headers at all', undefined],
  ])('are checked by the fetch seam with %s', async (_, headers) => {
    expect(await checksFor(headers)).toBe(1);
  });
});

describe('fetch seam: requests a hooked SDK client sent', () => {
  /** Checks counted for one chat completion through the hooked openai client, given `fetch` as its fetch. */
  async function checksForClient(fetch?: typeof globalThis.fetch): Promise<number> {
    const before = await checks();
    const client = new suite.env.openai.OpenAI({
      apiKey: 'test-key',
      baseURL: suite.server.openaiBaseURL,
      maxRetries: 0,
      ...(fetch ? { fetch } : {}),
    });
    await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Rain in Porto?' }] });
    return (await checks()) - before;
  }

  it.each<[string, typeof globalThis.fetch | undefined]>([
    ['the global fetch', undefined],
    ['a fetch of its own that passes the init on', (url, init) => globalThis.fetch(url, init)],
    ['a fetch of its own that builds a new Request (another signal)', (url, init) => globalThis.fetch(new Request(url, init))],
    [
      'a fetch of its own that waits first',
      async (url, init) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return globalThis.fetch(url, { ...init });
      },
    ],
  ])('are checked once, by the client hook, with %s', async (_, fetch) => {
    expect(await checksForClient(fetch)).toBe(1);
  });
});

describe('fetch seam: an attempt of a request the client hook checked', () => {
  /** The app's own fetch for a client: the global one (the seam), the SDK's version header dropped on the way. */
  const withoutVersion = (url: unknown, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.delete(HEADER);
    return fetch(url as string, { ...init, headers });
  };

  it('is counted once even when a fetch of the app drops its version header (openai)', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, fetch: withoutVersion });
    const before = await checks();
    await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Attempt once, openai.' }] });
    expect((await checks()) - before).toBe(1);
  });

  it('is counted once even when a fetch of the app drops its version header (@anthropic-ai/sdk)', async () => {
    const client = new suite.env.anthropic.Anthropic({
      apiKey: 'k',
      baseURL: suite.server.anthropicBaseURL,
      fetch: withoutVersion,
    });
    const before = await checks();
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Attempt once, anthropic.' }],
    });
    expect((await checks()) - before).toBe(1);
  });
});
