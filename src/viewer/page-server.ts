// The page: static markup, styles and script, and a stream of server-sent
// events carrying the violations held and then each new or completed one.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { VIEWER_CSS } from './page/css';
import { VIEWER_HTML } from './page/html';
import { VIEWER_JS } from './page/script';
import type { StoredViolation, ViolationStore } from './store';

export interface PageOptions {
  /** Jaeger's UI, for a link to each violation's trace (`URL/trace/<traceId>`). */
  jaeger: string | undefined;
  capacity: number;
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

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function pageHandler(store: ViolationStore, options: PageOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    if (options.loopbackOnly && !LOOPBACK_NAMES.has(hostname)) return plain(res, 421, 'this viewer answers on loopback names only');
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'GET only');
    if (path === '/api/stream') return stream(req, res, store, options);
    const file = FILES[path];
    if (!file) return plain(res, 404, 'not found');
    res.writeHead(200, { 'content-type': file[0], ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file[1]);
  };
}

function stream(req: IncomingMessage, res: ServerResponse, store: ViolationStore, options: PageOptions): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive', ...SECURITY_HEADERS });
  const send = (event: string, data: unknown): void => void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('config', { jaeger: options.jaeger ?? null, capacity: options.capacity });
  for (const v of store.list()) send('violation', v);
  send('ready', {});
  const unsubscribe = store.subscribe((v: StoredViolation) => send('violation', v));
  // A comment now and then keeps proxies and idle timeouts from closing the stream.
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  keepAlive.unref();
  req.on('close', () => {
    clearInterval(keepAlive);
    unsubscribe();
  });
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
  res.end(`${text}\n`);
}
