// Strict mode at the fetch seam for a Stainless client no hook patched:
// `together-ai` (no hook at all), and `openai` and `@anthropic-ai/sdk` as
// esbuild inlines them in a bundled app. Such a client would retry an error
// thrown from fetch and wrap it as "Connection error.", so the seam answers
// a refused request with a refusal of the package's own (refusal.ts): the
// request never reaches the server, the client throws its own status error
// naming the package and the violation after one attempt, the violation is
// counted once, and nothing of it is recorded in the implicit log. In warn
// mode nothing changes: the request is sent and the violation reported once.

import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionInvariantViolation, SessionLog, VIOLATION_METRIC, withSession } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { registerOtel, type OtelHarness } from '../support/otel';
import { useModePerTest } from '../support/instrumented';
import { PACKAGE_ROOT } from '../support/run-node';

type Turn = { role: 'user' | 'assistant'; content: unknown };
type Fetch = typeof globalThis.fetch;

/** A client of one SDK whose every fetch call is counted: one attempt is one call. */
interface CountedClient {
  send(messages: Turn[]): Promise<Turn>;
  attempts: number;
}

let provider: FakeProvider;
let otel: OtelHarness;
let makers: Record<string, (fetch: Fetch) => (messages: Turn[]) => Promise<Turn>>;

/** `pkg` as esbuild inlines it in a bundle: a copy of the SDK the require hook never sees. */
async function bundled(pkg: string, dir: string): Promise<unknown> {
  const outfile = join(dir, `${pkg.replace(/[@/]/g, '_')}.cjs`);
  await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(pkg)});`, resolveDir: PACKAGE_ROOT, loader: 'js' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
  });
  return createRequire(__filename)(outfile);
}

beforeAll(async () => {
  provider = await startFakeProvider();
  otel = registerOtel();
  const dir = mkdtempSync(join(tmpdir(), 'nous-stainless-'));
  const { OpenAI } = (await bundled('openai', dir)) as typeof import('openai');
  const { default: Anthropic } = (await bundled('@anthropic-ai/sdk', dir)) as typeof import('@anthropic-ai/sdk');
  // together-ai has no hook: loaded as the app loads it.
  const { default: Together } = createRequire(__filename)('together-ai') as typeof import('together-ai');
  const options = (fetch: Fetch) => ({ apiKey: 'k', fetch, maxRetries: 5 });
  makers = {
    'together-ai': (fetch) => {
      const client = new Together({ ...options(fetch), baseURL: provider.openaiBaseURL });
      return async (messages) => {
        const completion = await client.chat.completions.create({ model: 'm', messages: messages as never });
        return { role: 'assistant', content: completion.choices[0]!.message!.content ?? '' };
      };
    },
    'openai (bundled)': (fetch) => {
      const client = new OpenAI({ ...options(fetch), baseURL: provider.openaiBaseURL });
      return async (messages) => {
        const completion = await client.chat.completions.create({ model: 'm', messages: messages as never });
        return { role: 'assistant', content: completion.choices[0]!.message.content ?? '' };
      };
    },
    '@anthropic-ai/sdk (bundled)': (fetch) => {
      const client = new Anthropic({ ...options(fetch), baseURL: provider.anthropicBaseURL });
      return async (messages) => {
        const message = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: messages as never });
        return { role: 'assistant', content: message.content };
      };
    },
  };
}, 120_000);
afterAll(async () => {
  await otel.teardown();
  await provider.close();
});

const enable = useModePerTest(() => otel);

function counted(sdk: string): CountedClient {
  const client: CountedClient = { attempts: 0, send: async () => Promise.reject(new Error('unset')) };
  // Each attempt goes through globalThis.fetch as it is now, the seam's wrap included.
  client.send = makers[sdk]!((...args) => {
    client.attempts++;
    return globalThis.fetch(...args);
  });
  return client;
}

/** Two correct turns; then the third request, and the same with the first reply dropped. */
async function thirdTurn(client: CountedClient): Promise<{ correct: Turn[]; dropped: Turn[] }> {
  const tag = Math.random().toString(36).slice(2);
  const history: Turn[] = [{ role: 'user', content: `First question ${tag}` }];
  history.push(await client.send(history.slice()));
  history.push({ role: 'user', content: `Second question ${tag}` });
  history.push(await client.send(history.slice()));
  history.push({ role: 'user', content: `Third question ${tag}` });
  return { correct: history, dropped: history.filter((_, i) => i !== 1) };
}

/** What one call of `client` with `messages` cost: its error, and the server hits, attempts, checks and violations it added. */
async function call(client: CountedClient, messages: Turn[]) {
  const before = [provider.received.length, client.attempts, await otel.total(CHECKS_METRIC), await otel.total(VIOLATION_METRIC)];
  const error = await client.send(messages).then(
    () => undefined,
    (thrown: unknown) => thrown as Error & { status?: number; headers?: Headers; error?: unknown },
  );
  const after = [provider.received.length, client.attempts, await otel.total(CHECKS_METRIC), await otel.total(VIOLATION_METRIC)];
  const [sent, attempts, checks, violations] = after.map((n, i) => n - before[i]!);
  return { error, sent, attempts, checks, violations };
}

const SDKS = ['together-ai', 'openai (bundled)', '@anthropic-ai/sdk (bundled)'];
/** `gen_ai.provider.name` of each on a loopback host: by its SDK. */
const PROVIDERS: Record<string, string> = {
  'together-ai': 'together_ai',
  'openai (bundled)': 'openai',
  '@anthropic-ai/sdk (bundled)': 'anthropic',
};

describe('strict mode: an unhooked Stainless client is refused before sending, one attempt', () => {
  it.each(SDKS)('%s: its own status error names the package and the violation; nothing is sent, counted once', async (sdk) => {
    enable('strict');
    const client = counted(sdk);
    const { dropped } = await thirdTurn(client);
    const refused = await call(client, dropped);
    expect(refused).toMatchObject({ sent: 0, attempts: 1, checks: 1, violations: 1 });
    const error = refused.error!;
    expect(error).not.toBeInstanceOf(SessionInvariantViolation);
    // The SDK's own class for a 422 (esbuild may suffix a class name it inlines twice).
    expect(error.constructor.name).toMatch(/^UnprocessableEntityError\d*$/);
    expect(error.status).toBe(422);
    expect(error.message).toMatch(
      /^422 nous-session-invariant refused this request in strict mode; it was not sent to the provider: session invariant violated: missing_message at index 1 /,
    );
    expect(error.headers?.get('x-nous-session-invariant-refused')).toBe('missing_message');
    // Not recorded as sent (the model never saw it): the same call again is refused again, not taken for a re-send.
    expect(await call(client, dropped)).toMatchObject({ sent: 0, attempts: 1, checks: 1, violations: 1, error: { status: 422 } });
  });

  it('the correct third turn after a refusal goes through, silent', async () => {
    enable('strict');
    const client = counted('together-ai');
    const { correct, dropped } = await thirdTurn(client);
    expect(await call(client, dropped)).toMatchObject({ sent: 0, attempts: 1, violations: 1 });
    expect(await call(client, correct)).toMatchObject({ error: undefined, sent: 1, attempts: 1, checks: 1, violations: 0 });
  });

  it('a Request carrying the Stainless header, its body read from a copy, is answered the same way', async () => {
    enable('strict');
    const log = new SessionLog();
    log.append('user_message', { content: 'Umbrella in Lisbon?' });
    const sent = provider.received.length;
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'ghost' }] });
    const headers = { 'content-type': 'application/json', 'x-stainless-package-version': '0.52.0' };
    const response = await withSession(log, () =>
      fetch(new Request(`${provider.openaiBaseURL}/chat/completions`, { method: 'POST', headers, body })),
    );
    expect(response.status).toBe(422);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const refusal = (await response.json()) as { error: { type: string; code: string; message: string }; message: string };
    expect(refusal.error).toMatchObject({ type: 'session_invariant_violation', code: 'missing_message' });
    expect(refusal.message).toBe(refusal.error.message);
    expect(refusal.message).not.toContain('ghost');
    expect(provider.received.length).toBe(sent);
  });
});

describe('warn mode: nothing changes', () => {
  it.each(SDKS)('%s: a correct loop is silent and checked; the dropped request is sent and reported once', async (sdk) => {
    enable('warn');
    const client = counted(sdk);
    const named = async () =>
      (await otel.points(CHECKS_METRIC))
        .filter((p) => p.attributes['gen_ai.provider.name'] === PROVIDERS[sdk])
        .reduce((n, p) => n + p.value, 0);
    const before = [await otel.total(CHECKS_METRIC), await otel.total(VIOLATION_METRIC), await named()];
    const { dropped } = await thirdTurn(client);
    const after = [await otel.total(CHECKS_METRIC), await otel.total(VIOLATION_METRIC), await named()];
    expect(after.map((n, i) => n - before[i]!)).toEqual([2, 0, 2]);
    expect(await call(client, dropped)).toMatchObject({ error: undefined, sent: 1, attempts: 1, checks: 1, violations: 1 });
  });
});
