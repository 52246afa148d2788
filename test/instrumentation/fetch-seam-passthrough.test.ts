// The fetch seam observes a call and nothing more: whatever the fetch it
// wrapped returns (a test's double returning a plain object, even a value
// that is no promise) goes back as it is, and each member of the app's
// request is read once, so the body sent is the body checked.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionInvariantInstrumentation } from '../../src/instrumentation';
import { SessionLog, VIOLATION_METRIC, withSession } from '../../src/index';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { registerOtel, type OtelHarness } from '../support/otel';

let server: FakeProvider;
let otel: OtelHarness;
let instrumentation: SessionInvariantInstrumentation | undefined;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  server = await startFakeProvider();
  otel = registerOtel();
});
afterEach(() => {
  instrumentation?.disable();
  instrumentation = undefined;
  globalThis.fetch = realFetch;
});
afterAll(async () => {
  await otel.teardown();
  await server.close();
});

/** Enables the instrumentation over whatever `globalThis.fetch` is now, as `register` would. */
function enable(): void {
  instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  instrumentation.setTracerProvider(otel.tracerProvider);
  instrumentation.setMeterProvider(otel.meterProvider);
}

async function violations(): Promise<number> {
  return await otel.total(VIOLATION_METRIC);
}

const chat = (content: string) => JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content }] });

/** A bound log with one user message: a request carrying `ghost` is a violation, one carrying the log's own message is not. */
function boundLog(): SessionLog {
  const log = new SessionLog();
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  return log;
}

describe('fetch doubles installed before the instrumentation', () => {
  const reply = { ok: true, json: async () => ({ choices: [{ message: { role: 'assistant', content: 'hi' } }] }) };
  const withHeaders = { ...reply, headers: new Headers({ 'content-type': 'application/json' }) };

  it.each([
    ['a promise of a plain object', () => Promise.resolve(reply), reply],
    ['an async function returning a plain object with headers', async () => withHeaders, withHeaders],
    ['a plain object, no promise', () => reply, reply],
    ['a number', () => 42, 42],
    ['undefined', () => undefined, undefined],
  ])('%s: the same value comes back, untouched, nothing thrown', async (_, double, value) => {
    globalThis.fetch = double as unknown as typeof fetch;
    enable();
    const keys = value && typeof value === 'object' ? Reflect.ownKeys(value) : [];
    // Unbound: the implicit log awaits the reply, so the seam looks at the result.
    const result: unknown = fetch('http://127.0.0.1:1/v1/chat/completions', { method: 'POST', body: chat(`double ${Math.random()}`) });
    const settled = result instanceof Promise ? await result : result;
    expect(settled).toBe(value);
    if (value && typeof value === 'object') expect(Reflect.ownKeys(value)).toEqual(keys);
  });
});

describe('members of the request are read once', () => {
  it('a getter-defined body, method and headers: each read once, and the body sent is the body checked', async () => {
    enable();
    const reads = { body: 0, method: 0, headers: 0 };
    // The first read is a violating request; any later read would be a correct one.
    const init = {
      get body() {
        return chat(reads.body++ === 0 ? 'ghost' : 'Umbrella in Lisbon?');
      },
      get method() {
        reads.method++;
        return 'POST';
      },
      get headers() {
        reads.headers++;
        return { 'content-type': 'application/json' };
      },
    };
    const descriptors = Object.getOwnPropertyDescriptors(init);
    const before = await violations();
    await withSession(boundLog(), async () => (await fetch(`${server.openaiBaseURL}/chat/completions`, init)).json());
    expect(reads).toEqual({ body: 1, method: 1, headers: 1 });
    expect(server.received.at(-1)!.body).toEqual(JSON.parse(chat('ghost')));
    expect((await violations()) - before).toBe(1);
    expect(Object.getOwnPropertyDescriptors(init)).toEqual(descriptors);
  });

  it('a plain init goes to fetch as the same object', async () => {
    const seen: unknown[] = [];
    globalThis.fetch = (_input: unknown, init: unknown) => {
      seen.push(init);
      return realFetch(`${server.openaiBaseURL}/chat/completions`, init as RequestInit);
    };
    enable();
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat('Umbrella in Lisbon?') };
    await (await fetch(`${server.openaiBaseURL}/chat/completions`, init)).json();
    expect(seen).toEqual([init]);
    expect(seen[0]).toBe(init);
  });

  it('a Request input: its url is read once', async () => {
    enable();
    let reads = 0;
    const input = {
      get url() {
        reads++;
        return `${server.openaiBaseURL}/chat/completions`;
      },
      toString() {
        return `${server.openaiBaseURL}/chat/completions`;
      },
    };
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat('Umbrella in Lisbon?') };
    await (await fetch(input as unknown as string, init)).json();
    expect(reads).toBe(1);
  });
});
