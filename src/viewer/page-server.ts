// The page: static markup, styles and script, and a stream of server-sent
// events carrying the violations held and then each new or completed one.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { answersHost, MISDIRECTED } from './host-rule';
import { VIEWER_CSS } from './page/css';
import { VIEWER_HTML } from './page/html';
import { VIEWER_JS } from './page/script';
import type { StoredViolation, ViolationStore } from './store';

export interface PageOptions {
  /** Jaeger's UI, for a link to each violation's trace (`URL/trace/<traceId>`). */
  jaeger: string | undefined;
  capacity: number;
  /** Where apps send their telemetry (the OTLP receiver), for the empty page's hint; set once it listens. */
  otlpUrl?: string | undefined;
  /** Refuse Host headers other than loopback names, so a rebound DNS name cannot read the page. */
  loopbackOnly: boolean;
}

// Nothing but this origin's own files: even a string that slipped into the DOM could not load or run anything.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const FILES: Record<string, [type: string, body: string]> = {
  '/': ['text/html; charset=utf-8', VIEWER_HTML],
  '/viewer.css': ['text/css; charset=utf-8', VIEWER_CSS],
  '/viewer.js': ['text/javascript; charset=utf-8', VIEWER_JS],
};

/**
 * Bytes a page stream may have waiting for its reader before the reader is
 * dropped. A page that stops reading (a frozen tab, a client that never
 * reads) would otherwise hold everything sent to it in the viewer's memory;
 * dropped, its EventSource reconnects and gets what is held then.
 */
export const MAX_PENDING_STREAM_BYTES = 16 * 1024 * 1024;

export function pageHandler(store: ViolationStore, options: PageOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!answersHost(req, options.loopbackOnly)) return plain(res, MISDIRECTED, 'this viewer answers on loopback names only');
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'GET only');
    if (path === '/api/stream') return stream(req, res, store, options);
    const file = FILES[path];
    if (!file) return plain(res, 404, 'not found');
    res.writeHead(200, { 'content-type': file[0], ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file[1]);
  };
}

/**
 * The violations held, then each new or completed one, as server-sent events.
 * The snapshot is written as the reader takes it (waiting for `drain`); a
 * live event finding more than `MAX_PENDING_STREAM_BYTES` still unread drops
 * the reader, so a page that stops reading costs a bounded amount of memory.
 */
function stream(req: IncomingMessage, res: ServerResponse, store: ViolationStore, options: PageOptions): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive', ...SECURITY_HEADERS });
  const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  let open = true;
  const drop = (): void => {
    if (!open) return;
    open = false;
    clearInterval(keepAlive);
    unsubscribe();
    res.destroy();
  };
  const send = (chunk: string): void => {
    if (!open) return;
    if (res.writableLength > MAX_PENDING_STREAM_BYTES) return drop();
    res.write(chunk);
  };
  const unsubscribe = store.subscribe((v: StoredViolation) => send(frame('violation', v)));
  // A comment now and then keeps proxies and idle timeouts from closing the stream.
  const keepAlive = setInterval(() => send(': keep-alive\n\n'), 15_000);
  keepAlive.unref();
  req.on('close', drop);
  res.on('close', drop);
  res.on('error', drop);
  void (async () => {
    const held = store.list();
    if (!res.write(frame('config', { jaeger: options.jaeger ?? null, capacity: options.capacity, otlp: options.otlpUrl ?? null })))
      await drained(res);
    for (const v of held) {
      if (!open) return;
      if (!res.write(frame('violation', v))) await drained(res);
    }
    if (open) res.write(frame('ready', {}));
  })();
}

/** Resolves when `res` drains or closes, whichever comes first. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
  res.end(`${text}\n`);
}
