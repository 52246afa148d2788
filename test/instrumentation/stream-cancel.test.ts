// A model stream the app stops reading stops: cancelling it (a reader's
// cancel, `for await ... break`, `asResponse()` then `body.cancel()`)
// returns as promptly with the package as without it, and the provider sees
// the connection closed. The package reads the reply as the app reads it,
// so a stream read to the end is still observed.

import { trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { VIOLATION_METRIC } from '../../src/index';
import { ENDLESS_MODEL } from '../support/fake-provider';
import { useInstrumentedProvider } from '../support/instrumented';

const suite = useInstrumentedProvider({ mode: 'warn' });
/** Far above the 10-100 ms a bare cancel takes, far below "never". */
const PROMPT_MS = 2_000;
const figures: string[] = [];
afterAll(() => console.log(`cancel latency (ms):\n${figures.join('\n')}`));

type Api = 'openai' | 'anthropic' | 'fetch';

/** An endless streamed request of `api`: the SDK's stream, its raw response, or a plain fetch's response. */
async function endless(api: Api, signal: AbortSignal): Promise<{ response: Response; iterate(): AsyncIterable<unknown> }> {
  const { openaiBaseURL, anthropicBaseURL } = suite.server;
  const messages = [{ role: 'user' as const, content: `Go on forever (${api}).` }];
  if (api === 'openai') {
    const sdk = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: openaiBaseURL, maxRetries: 0 });
    const { data, response } = await sdk.chat.completions
      .create({ model: ENDLESS_MODEL, messages, stream: true }, { signal })
      .withResponse();
    return { response, iterate: () => data };
  }
  if (api === 'anthropic') {
    const sdk = new suite.env.anthropic.Anthropic({ apiKey: 'k', baseURL: anthropicBaseURL, maxRetries: 0 });
    const { data, response } = await sdk.messages
      .create({ model: ENDLESS_MODEL, max_tokens: 64, messages, stream: true }, { signal })
      .withResponse();
    return { response, iterate: () => data };
  }
  const response = await fetch(`${openaiBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: ENDLESS_MODEL, messages, stream: true }),
    signal,
  });
  return { response, iterate: () => response.body! };
}

/** The ways an app stops reading; each returns once its cancel has returned. */
const STOPS: Record<string, (r: Awaited<ReturnType<typeof endless>>) => Promise<void>> = {
  'reader.cancel()': async ({ response }) => {
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
  },
  'for await ... break': async ({ iterate }) => {
    for await (const _ of iterate()) break;
  },
  'body.cancel()': async ({ response }) => {
    await response.body!.cancel();
  },
};

/** How long `stop` takes to return (a bound past PROMPT_MS, then the request is aborted), and whether the provider saw the connection closed. */
async function timeStop(api: Api, stop: (typeof STOPS)[string]): Promise<{ ms: number; closed: boolean }> {
  const controller = new AbortController();
  const closedBefore = suite.server.endless.closed;
  const stream = await endless(api, controller.signal);
  const started = performance.now();
  const returned = await Promise.race([stop(stream).then(() => true), new Promise<boolean>((r) => setTimeout(r, PROMPT_MS + 500, false))]);
  const ms = returned ? performance.now() - started : Infinity;
  const deadline = Date.now() + PROMPT_MS;
  while (suite.server.endless.closed === closedBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const closed = suite.server.endless.closed > closedBefore;
  controller.abort(); // a stop that never returned: release the connection for the next test
  return { ms, closed };
}

describe.each<Api>(['openai', 'anthropic', 'fetch'])('an endless %s stream the app stops reading', (api) => {
  const stops = api === 'fetch' ? Object.entries(STOPS).filter(([name]) => name !== 'for await ... break') : Object.entries(STOPS);
  it.each(stops)('%s returns promptly and closes the connection', async (name, stop) => {
    const observed = await timeStop(api, stop);
    suite.env.instrumentation.disable();
    const bare = await timeStop(api, stop).finally(() => suite.env.instrumentation.enable());
    figures.push(`${api} ${name}: ${observed.ms.toFixed(1)} with the package, ${bare.ms.toFixed(1)} without`);
    expect(bare).toMatchObject({ closed: true });
    expect(observed.closed).toBe(true);
    expect(observed.ms).toBeLessThan(PROMPT_MS);
    expect(suite.server.endless.open).toBe(0);
  });
});

/** Violations of `kind` counted so far. */
async function violations(kind: string): Promise<number> {
  return (await suite.env.otel.points(VIOLATION_METRIC))
    .filter((p) => p.attributes['nous.session.invariant.kind'] === kind)
    .reduce((n, p) => n + p.value, 0);
}

describe('a stream read to the end is still observed', () => {
  /** One turn (the app's span): a streamed reply read whole, then a request that leaves it out, reported as missing_message. */
  async function droppedReply(api: Api, read: (question: string) => Promise<string>, next: (question: string) => Promise<unknown>) {
    const before = await violations('missing_message');
    await trace.getTracer('app').startActiveSpan('turn', async (span) => {
      const question = `Read me whole (${api}, ${Math.random()}).`;
      expect(await read(question)).toMatch(/^answer \d+$/);
      await next(question);
      span.end();
    });
    expect(await violations('missing_message')).toBe(before + 1);
  }

  it('openai chat completions, for await to the end (the SDK cancels after [DONE])', async () => {
    const sdk = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
    const ask = (q: string) => [{ role: 'user' as const, content: q }];
    await droppedReply(
      'openai',
      async (q) => {
        let text = '';
        for await (const chunk of await sdk.chat.completions.create({ model: 'gpt-test', messages: ask(q), stream: true }))
          text += chunk.choices[0]?.delta.content ?? '';
        return text;
      },
      (q) => sdk.chat.completions.create({ model: 'gpt-test', messages: [...ask(q), { role: 'user', content: 'More?' }] }),
    );
  });

  it('anthropic messages, for await to the end', async () => {
    const sdk = new suite.env.anthropic.Anthropic({ apiKey: 'k', baseURL: suite.server.anthropicBaseURL, maxRetries: 0 });
    const ask = (q: string) => [{ role: 'user' as const, content: q }];
    await droppedReply(
      'anthropic',
      async (q) => {
        let text = '';
        for await (const event of await sdk.messages.create({ model: 'claude-test', max_tokens: 64, messages: ask(q), stream: true }))
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
        return text;
      },
      (q) => sdk.messages.create({ model: 'claude-test', max_tokens: 64, messages: [...ask(q), { role: 'user', content: 'More?' }] }),
    );
  });

  it.each(['pipeThrough', 'text()'])('a plain fetch, its body read to the end with %s (the fetch seam)', async (how) => {
    const url = `${suite.server.openaiBaseURL}/chat/completions`;
    const post = (body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ask = (q: string) => [{ role: 'user', content: q }];
    await droppedReply(
      'fetch',
      async (q) => {
        const response = await post({ model: 'gpt-test', messages: ask(q), stream: true });
        let events = '';
        if (how === 'text()') events = await response.text();
        else for await (const text of response.body!.pipeThrough(new TextDecoderStream())) events += text;
        return [...events.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
      },
      async (q) => (await post({ model: 'gpt-test', messages: [...ask(q), { role: 'user', content: 'More?' }] })).json(),
    );
  });
});
