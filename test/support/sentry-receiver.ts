// A loopback stand-in for Sentry's ingest: accepts the envelopes the real
// @sentry/node transport sends to a DSN on 127.0.0.1 and keeps their text.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface SentryReceiver {
  /** A DSN for project 1 on this server. */
  dsn: string;
  /** Every envelope received, as text (ungzipped). */
  envelopes: string[];
  close(): Promise<void>;
}

export async function startSentryReceiver(): Promise<SentryReceiver> {
  const envelopes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      envelopes.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    dsn: `http://public@127.0.0.1:${port}/1`,
    envelopes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
