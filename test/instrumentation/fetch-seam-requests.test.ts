// The fetch seam reads the request a call sends however it is made: a URL
// and an init, a `Request`, or a `Request` with an init whose members replace
// the Request's (as fetch itself builds `new Request(input, init)`). The body
// is read once, without consuming what the caller sends, so the server
// receives the same bytes as without the package; a getter on the init runs
// once, and the body it gave is both checked and sent.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionInvariantViolation, SessionLog, VIOLATION_METRIC, withSession } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { registerOtel, type OtelHarness } from '../support/otel';
import { useModePerTest } from '../support/instrumented';

/** A loopback Chat Completions server that keeps the raw bytes of every request. */
let server: Server;
let base: string;
const received: Buffer[] = [];
let otel: OtelHarness;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'c', choices: [{ index: 0, message: { role: 'assistant', content: 'Take one.' }, finish_reason: 'stop' }] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  otel = registerOtel();
});
afterAll(async () => {
  await otel.teardown();
  await new Promise((resolve) => server.close(resolve));
});

const enable = useModePerTest(() => otel);

const chat = (content: string): string => JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content }] });
const json = { 'content-type': 'application/json' };

/** A bound log holding one user message: a request carrying it is correct, one carrying `ghost` is not. */
function boundLog(): SessionLog {
  const log = new SessionLog();
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  return log;
}

/** Violations and checks counted while `run` runs under the bound log. */
async function counted(run: () => Promise<unknown>): Promise<{ violations: number; checks: number }> {
  const [v, c] = [await otel.total(VIOLATION_METRIC), await otel.total(CHECKS_METRIC)];
  await withSession(boundLog(), run);
  return { violations: (await otel.total(VIOLATION_METRIC)) - v, checks: (await otel.total(CHECKS_METRIC)) - c };
}

const send = async (...args: Parameters<typeof fetch>): Promise<unknown> => (await fetch(...args)).json();

describe('a plain fetch(new Request(...))', () => {
  it('is checked: silent when correct, the violation reported', async () => {
    enable();
    const ok = await counted(() => send(new Request(base, { method: 'POST', headers: json, body: chat('Umbrella in Lisbon?') })));
    expect(ok).toEqual({ violations: 0, checks: 1 });
    const bad = await counted(() => send(new Request(base, { method: 'POST', headers: json, body: chat('ghost') })));
    expect(bad).toEqual({ violations: 1, checks: 1 });
  });

  it('a GET Request, or one to a path no format reads, is not checked', async () => {
    enable();
    const none = await counted(async () => {
      await (await fetch(new Request(base, { method: 'GET' }))).text();
      await (await fetch(new Request(base.replace('chat/completions', 'files'), { method: 'POST', body: chat('ghost') }))).text();
    });
    expect(none).toEqual({ violations: 0, checks: 0 });
  });

  it('strict mode refuses it before it is sent, with the violation itself', async () => {
    enable('strict');
    const before = received.length;
    const thrown = await withSession(boundLog(), () =>
      fetch(new Request(base, { method: 'POST', headers: json, body: chat('ghost') })).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    expect(thrown).toBeInstanceOf(SessionInvariantViolation);
    expect(received.length).toBe(before);
  });

  it('the server receives the bytes the caller sent, byte for byte, and the caller can still use its Request', async () => {
    enable();
    // A BOM, escapes, two-byte and four-byte text, odd spacing: anything a re-serialisation would change.
    const text = '\uFEFF{ "model" : "gpt-test",\n "messages":[{"role":"user","content":"\\u00e9t\u00e9 \u{1F327} Umbrella?"}] }  ';
    for (const body of [text, new TextEncoder().encode(text)]) {
      const request = new Request(base, { method: 'POST', headers: json, body });
      const at = received.length;
      await (await fetch(request)).json();
      expect(received[at]!.equals(Buffer.from(text, 'utf8'))).toBe(true);
      expect(request.bodyUsed).toBe(true); // fetch read it, as it does without the package, and nothing else did
    }
    // A byte body with a URL and init.
    const at = received.length;
    await send(base, { method: 'POST', headers: json, body: new TextEncoder().encode(text) });
    expect(received[at]!.equals(Buffer.from(text, 'utf8'))).toBe(true);
  });
});

describe('a Request with an init: the init members that are given win, as in fetch', () => {
  it.each([
    [
      'the init body replaces the Request body',
      () => [new Request(base, { method: 'POST', body: chat('ghost') }), { body: chat('Umbrella in Lisbon?') }],
      0,
      'Umbrella in Lisbon?',
    ],
    ['the init method and body on a GET Request', () => [new Request(base), { method: 'POST', body: chat('ghost') }], 1, 'ghost'],
    [
      'the Request body with init headers only',
      () => [new Request(base, { method: 'POST', body: chat('ghost') }), { headers: json }],
      1,
      'ghost',
    ],
    [
      'an undefined init body keeps the Request body',
      () => [new Request(base, { method: 'POST', body: chat('ghost') }), { body: undefined }],
      1,
      'ghost',
    ],
    [
      'a null init body keeps the Request body',
      () => [new Request(base, { method: 'POST', body: chat('Umbrella in Lisbon?') }), { body: null }],
      0,
      'Umbrella in Lisbon?',
    ],
  ] as Array<[string, () => [Request, RequestInit], number, string]>)('%s', async (_, make, violations, content) => {
    enable();
    const at = received.length;
    const seen = await counted(() => send(...make()));
    expect(seen).toEqual({ violations, checks: 1 });
    expect(JSON.parse(received[at]!.toString('utf8'))).toEqual(JSON.parse(chat(content)));
  });

  it("a body getter on the init runs once: the body it gave is the one checked and the one sent (issue 37's side effects)", async () => {
    enable();
    for (const input of [base, new Request(base, { method: 'POST', body: chat('Umbrella in Lisbon?') })]) {
      let reads = 0;
      // Its first value is a violating request, every later one a correct one.
      const init = {
        method: 'POST',
        get body() {
          return chat(reads++ === 0 ? 'ghost' : 'Umbrella in Lisbon?');
        },
      };
      const at = received.length;
      const seen = await counted(() => send(input, init));
      expect(reads).toBe(1);
      expect(seen).toEqual({ violations: 1, checks: 1 });
      expect(JSON.parse(received[at]!.toString('utf8'))).toEqual(JSON.parse(chat('ghost')));
    }
  });

  it('with no log bound (zero code), a getter body is read once and the implicit log follows the body sent', async () => {
    enable();
    let reads = 0;
    const tag = Math.random().toString(36).slice(2);
    const init = {
      method: 'POST',
      headers: json,
      get body() {
        reads++;
        return chat(`First question ${tag}`);
      },
    };
    const at = received.length;
    const before = await otel.total(CHECKS_METRIC);
    await send(new Request(base), init);
    expect(reads).toBe(1);
    expect((await otel.total(CHECKS_METRIC)) - before).toBe(1);
    expect(JSON.parse(received[at]!.toString('utf8'))).toEqual(JSON.parse(chat(`First question ${tag}`)));
  });
});
