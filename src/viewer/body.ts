// Reading a request body within a size limit, gunzipped if it says so: an
// oversized payload is refused (413) before it is held in memory whole.

import type { IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';

/** How large an OTLP payload may be, after decompression, unless `--max-body-bytes` says otherwise: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A request the receiver refuses, with the status it answers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads and drops what is left of `request`, at most `bound` bytes more (and
 * for at most `DRAIN_MS`); resolves when it has ended or either bound is
 * reached. Never rejects.
 */
export function drainBody(request: IncomingMessage, bound: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (): void => {
      clearTimeout(timer);
      request.removeListener('data', onData);
      request.removeListener('end', finish);
      request.removeListener('error', finish);
      request.removeListener('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > bound) finish();
    };
    const timer = setTimeout(finish, DRAIN_MS);
    request.on('data', onData);
    request.on('end', finish);
    request.on('error', finish);
    request.on('close', finish);
    request.resume();
  });
}

/** How long a refused body is drained at most, so a slow sender cannot hold the connection. */
const DRAIN_MS = 10_000;

export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, `payload over ${limit} bytes`);
  const body = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped rather than the socket cut, so the client gets the 413.
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      chunks.length = 0;
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.pause();
      reject(new HttpError(413, `payload over ${limit} bytes`));
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', reject);
  });
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return body;
  if (encoding !== 'gzip') throw new HttpError(415, `unsupported content-encoding ${encoding}`);
  try {
    return gunzipSync(body, { maxOutputLength: limit });
  } catch (error) {
    if (error instanceof RangeError) throw new HttpError(413, `payload over ${limit} bytes once decompressed`);
    throw new HttpError(400, 'payload is not valid gzip');
  }
}
