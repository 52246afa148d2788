// One process: the OTLP/HTTP receiver and the page, sharing one store.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_MAX_BODY_BYTES } from './body';
import { pageHandler, type PageOptions } from './page-server';
import { otlpHandler } from './receiver';
import { DEFAULT_CAPACITY, ViolationStore } from './store';

export interface ViewerOptions {
  /** Where both servers listen; loopback unless asked otherwise. */
  host: string;
  /** The page's port (0: any free one). */
  port: number;
  /** The OTLP/HTTP port (0: any free one). */
  otlpPort: number;
  jaeger?: string | undefined;
  maxViolations?: number | undefined;
  maxBodyBytes?: number | undefined;
}

export interface RunningViewer {
  store: ViolationStore;
  pageUrl: string;
  otlpUrl: string;
  close(): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4320;
export const DEFAULT_OTLP_PORT = 4318;

export async function startViewer(options: ViewerOptions): Promise<RunningViewer> {
  const capacity = options.maxViolations ?? DEFAULT_CAPACITY;
  const store = new ViolationStore(capacity);
  const loopbackOnly = isLoopback(options.host);
  const otlp = createServer(otlpHandler(store, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, loopbackOnly));
  const pageOptions: PageOptions = { jaeger: options.jaeger, capacity, loopbackOnly };
  const page = createServer(pageHandler(store, pageOptions));
  const otlpPort = await listen(otlp, options.otlpPort, options.host);
  let pagePort: number;
  try {
    pagePort = await listen(page, options.port, options.host);
  } catch (error) {
    otlp.close();
    throw error;
  }
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  pageOptions.otlpUrl = `http://${shown}:${otlpPort}`;
  return {
    store,
    pageUrl: `http://${shown}:${pagePort}`,
    otlpUrl: pageOptions.otlpUrl,
    close: async () => {
      page.closeAllConnections();
      otlp.closeAllConnections();
      await Promise.all([close(page), close(otlp)]);
    },
  };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
