// The viewer as a server facing senders and readers it does not control
// (issue 37 items 10, 12, 13, 14): a page that stops reading, a violation of
// megabytes, a body far over the limit, and a Host that is not loopback.

import { request } from 'node:http';
import { connect } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { TEXT_BUDGET } from '../../src/viewer/bounded-violation';
import { startViewer, type RunningViewer } from '../../src/viewer/viewer';
import type { ViewerViolation } from '../../src/viewer/violation';

const viewers: RunningViewer[] = [];
afterEach(async () => {
  await Promise.all(viewers.splice(0).map((v) => v.close()));
});

async function viewer(): Promise<RunningViewer> {
  const v = await startViewer({ host: '127.0.0.1', port: 0, otlpPort: 0 });
  viewers.push(v);
  return v;
}

function violation(n: number, fields: Partial<ViewerViolation> = {}, preview = ''): ViewerViolation {
  return {
    timeMs: n,
    traceId: `${n}`.padStart(32, '0'),
    spanId: '00f067aa0ba902b7',
    service: 'app',
    spanName: undefined,
    kind: 'missing_message',
    mode: 'warn',
    log: 'implicit',
    agent: 'planner',
    conversation: undefined,
    provider: undefined,
    model: undefined,
    explanation: undefined,
    attributes: {
      'nous.session.invariant.index': 1,
      'nous.session.invariant.request_length': 2,
      'nous.session.invariant.log_length': 3,
      'nous.session.invariant.missing.count': 1,
      'nous.session.invariant.missing.roles': ['user'],
      'nous.session.invariant.missing.previews': [preview],
    },
    ...fields,
  };
}

describe('item 10: a page that stops reading', () => {
  it('is dropped once too much waits for it, while a page that reads keeps every violation', async () => {
    const v = await viewer();
    const { hostname, port } = new URL(v.pageUrl);
    // A client that asks for the stream and never reads a byte of it.
    const stuck = connect(Number(port), hostname);
    stuck.pause();
    stuck.write(`GET /api/stream HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`);
    // A client that reads everything.
    let received = 0;
    const reader = request(`${v.pageUrl}/api/stream`, (res) => res.on('data', (c: Buffer) => (received += c.length)));
    reader.end();
    while (v.store.subscribers < 2) await tick();
    const preview = 'x'.repeat(5_000);
    // 10,000 violations of about 5 kB, arriving in batches as OTLP payloads would.
    for (let batch = 0; batch < 100; batch++) {
      v.store.add(Array.from({ length: 100 }, (_, i) => violation(batch * 100 + i, {}, preview)));
      await tick();
    }
    for (let i = 0; i < 100 && received < 50_000_000; i++) await new Promise((r) => setTimeout(r, 20));
    expect(v.store.subscribers).toBe(1);
    expect(received).toBeGreaterThan(50_000_000);
    reader.destroy();
    stuck.destroy();
  });
});

describe('item 12: one violation cannot hold megabytes', () => {
  it('a 3.5 MB agent name, attribute or key is cut, so each violation keeps a bounded amount of text', async () => {
    const v = await viewer();
    const huge = 'a'.repeat(3_500_000);
    for (let n = 0; n < 10; n++) {
      const big = violation(n, { agent: huge, explanation: huge, kind: n % 2 ? 'order' : huge });
      big.attributes[`nous.session.invariant.${huge}`] = huge;
      big.attributes['nous.session.invariant.list'] = Array.from({ length: 10 }, () => huge);
      v.store.add([big]);
    }
    expect(v.store.size).toBe(10);
    for (const kept of v.store.list()) {
      const { layout: _layout, ...text } = kept;
      expect(JSON.stringify(text).length).toBeLessThan(2 * TEXT_BUDGET);
      expect(kept.agent).toMatch(/^a+…$/);
    }
  });
});

/**
 * Sends a POST of `size` bytes on a plain socket, as a simple client does (the
 * whole body written, then the answer read); resolves with the status line,
 * or with the socket error and what had arrived before it.
 */
function postLarge(url: string, size: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(`${e.code ?? e.message} after ${JSON.stringify(got.split('\r\n')[0])}`));
    socket.on('close', () => resolve(got.split('\r\n')[0]!));
    socket.write(
      `POST /v1/traces HTTP/1.1\r\nHost: localhost:${port}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(size, 0x20));
  });
}

describe('item 13: a body far over the limit', () => {
  it('gets the documented 413 while the client is still sending, with no broken pipe or reset', async () => {
    const v = await viewer();
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await postLarge(v.otlpUrl, 50 * 1024 * 1024));
    expect(outcomes).toEqual(Array(3).fill('HTTP/1.1 413 Payload Too Large'));
    expect(v.store.size).toBe(0);
  });
});

describe('item 14: the OTLP port answers loopback Host names only', () => {
  it('refuses a rebound name with 421 and keeps nothing; loopback names are served', async () => {
    const v = await viewer();
    const port = new URL(v.otlpUrl).port;
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: 'chat',
                  events: [
                    {
                      timeUnixNano: '1700000000000000000',
                      name: 'nous.session.invariant.violation',
                      attributes: [{ key: 'nous.session.invariant.kind', value: { stringValue: 'order' } }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    const post = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${v.otlpUrl}/v1/traces`, { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await post(`evil.example:${port}`)).toBe(421);
    expect(v.store.size).toBe(0);
    expect(await post(`localhost:${port}`)).toBe(200);
    expect(await post(`127.0.0.1:${port}`)).toBe(200);
    expect(v.store.size).toBe(1);
  });
});
