// The OTLP/HTTP endpoint: /v1/traces and /v1/logs, JSON or protobuf, into the
// store; /v1/metrics accepted and ignored, so an app exporting every signal
// gets no errors. A payload is decoded whole before anything is stored, so a
// malformed one (400) or an oversized one (413) changes nothing.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { drainBody, HttpError, readBody } from './body';
import { answersHost, MISDIRECTED } from './host-rule';
import { logsFromJson, tracesFromJson } from './otlp-json';
import { decodeLogs, decodeTraces } from './otlp-proto';
import { DecodeError } from './protobuf';
import type { ViolationStore } from './store';
import { violationsFromLogs, violationsFromSpans, type ViewerViolation } from './violation';

type Encoding = 'json' | 'protobuf';

const SIGNALS: Record<string, ((body: Buffer, encoding: Encoding) => ViewerViolation[]) | null> = {
  '/v1/traces': (body, encoding) => violationsFromSpans(encoding === 'json' ? tracesFromJson(parseJson(body)) : decodeTraces(body)),
  '/v1/logs': (body, encoding) => violationsFromLogs(encoding === 'json' ? logsFromJson(parseJson(body)) : decodeLogs(body)),
  '/v1/metrics': null,
};

export function otlpHandler(
  store: ViolationStore,
  maxBodyBytes: number,
  loopbackOnly: boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, store, maxBodyBytes, loopbackOnly).then(
      (encoding) => reply(res, 200, encoding, ''),
      async (error: unknown) => {
        const status = error instanceof HttpError ? error.status : error instanceof DecodeError ? 400 : 500;
        const message = error instanceof Error ? error.message : 'internal error';
        if (!req.complete) {
          // A refused body still on its way is read and dropped (up to a bound) before the answer, so the client,
          // still sending, gets the answer and not a reset; past the bound the connection closes after the answer.
          res.setHeader('connection', 'close');
          await drainBody(req, Math.max(maxBodyBytes, MAX_DRAIN_BYTES));
        }
        reply(res, status, encodingOf(req) ?? 'json', message);
      },
    );
  };
}

/** Bytes of a refused body read and dropped at most, so that its sender sees the answer (413 mostly) and not a reset. */
export const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

async function handle(req: IncomingMessage, store: ViolationStore, maxBodyBytes: number, loopbackOnly: boolean): Promise<Encoding> {
  if (!answersHost(req, loopbackOnly)) throw new HttpError(MISDIRECTED, 'this viewer answers on loopback names only');
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (!(path in SIGNALS)) throw new HttpError(404, `no OTLP signal at ${path}`);
  if (req.method !== 'POST') throw new HttpError(405, 'OTLP/HTTP takes POST');
  const encoding = encodingOf(req);
  if (encoding === undefined) throw new HttpError(415, 'content-type must be application/x-protobuf or application/json');
  const body = await readBody(req, maxBodyBytes);
  const decode = SIGNALS[path];
  if (decode) store.add(decode(body, encoding));
  return encoding;
}

function encodingOf(req: IncomingMessage): Encoding | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return undefined;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new DecodeError('payload is not JSON');
  }
}

/** Success is an empty Export*ServiceResponse in the request's encoding; a failure carries its reason as text. */
function reply(res: ServerResponse, status: number, encoding: Encoding, message: string): void {
  if (res.headersSent) return;
  if (status === 200) {
    res.writeHead(200, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' });
    res.end(encoding === 'json' ? '{}' : '');
  } else {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${message}\n`);
  }
}
