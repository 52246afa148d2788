// The one place that decides which Host a loopback viewer answers, on both of
// its ports: a page on another origin that rebinds its DNS name to 127.0.0.1
// can reach the ports, but its requests still carry its own name. Refusing
// any Host but a loopback name keeps it from reading the page and from
// posting fake violations to the OTLP port (docs/viewer.md).

import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What a refused request is answered with: 421 Misdirected Request. */
export const MISDIRECTED = 421;

/** Whether `req` may be answered: always when not on loopback, else only for a loopback Host (any port). */
export function answersHost(req: IncomingMessage, loopbackOnly: boolean): boolean {
  if (!loopbackOnly) return true;
  const hostname = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  return LOOPBACK_NAMES.has(hostname);
}
