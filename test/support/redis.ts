// A real redis-server (Debian's package) on a free loopback port, started and
// stopped by the test, with no persistence; and the chat-server workers that
// share it (test/fixtures/store/chat-server.cjs).

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisBuckets } from '../../src/request-path/implicit/redis-buckets';
import { connectionFor } from '../../src/request-path/implicit/redis-connection';
import { readRedisUrl } from '../../src/request-path/implicit/store-config';
import { startFakeProvider, type FakeProvider } from './fake-provider';
import { PACKAGE_ROOT, appEnvironment } from './run-node';
import { until } from './services';
import { freePort, requireProgram } from './tools';

/** Whether redis-server is installed (else one line says what is skipped; a failure under NOUS_TEST_REQUIRE_PROGRAMS=1). */
export function redisInstalled(what: string): boolean {
  return requireProgram('redis-server', what);
}

/** The store's buckets at a Redis URL, on a connection of the package's own (as a process has). */
export function redisBuckets(url: string, prefix: string, ttlMs: number): RedisBuckets {
  const target = readRedisUrl(url);
  if (typeof target === 'string') throw new Error(`${url} ${target}`);
  return new RedisBuckets(connectionFor(target), prefix, ttlMs);
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** A client of the test's own. */
  readonly client: Redis;
  /** Kills the server (SIGKILL): every connection drops. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that is there but does not answer. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** Every server started, killed when the test process exits however it ends (no server outlives its tests). */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const server of started) server.kill('SIGKILL');
});

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    started.add(server);
    server.once('exit', () => started.delete(server));
    child = server;
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await until(
        `redis-server on port ${port}`,
        async () => {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG' ? true : undefined;
        },
        10_000,
        50,
      );
    } finally {
      probe.disconnect();
    }
  };
  const kill = async (): Promise<void> => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    kill,
    restart: launch,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    stop: async () => {
      client.disconnect();
      await kill();
    },
  };
}

/** One turn's outcome on a worker: the violation kinds its requests raised, and an error if the call failed. */
export interface TurnResult {
  id: string;
  violations: string[];
  error?: string;
}

/** A chat-server worker process. */
export interface Worker {
  send(turn: { id: string; file: string; user: string; fault?: string }): Promise<TurnResult>;
  /** Ends its input and resolves with the one-time notices it logged, and whether it loaded ioredis. */
  close(): Promise<{ notices: string[]; ioredis: boolean }>;
  child: ChildProcess;
}

export function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--require', 'nous-session-invariant/register', 'test/fixtures/store/chat-server.cjs'], {
    cwd: PACKAGE_ROOT,
    env: { ...appEnvironment(), OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const waiting = new Map<string, (result: TurnResult) => void>();
  let closed: ((end: { notices: string[]; ioredis: boolean }) => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const parsed = JSON.parse(line) as TurnResult & { notices?: string[]; ioredis?: boolean };
    if (parsed.notices !== undefined) closed?.({ notices: parsed.notices, ioredis: parsed.ioredis === true });
    else waiting.get(parsed.id)?.(parsed);
  });
  return {
    child,
    send: (turn) =>
      new Promise<TurnResult>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`turn ${turn.id} took over 30 s; stderr:\n${stderr}`)), 30_000);
        waiting.set(turn.id, (result) => {
          clearTimeout(timer);
          resolve(result);
        });
        child.stdin.write(`${JSON.stringify(turn)}\n`);
      }),
    close: () =>
      new Promise<{ notices: string[]; ioredis: boolean }>((resolve) => {
        closed = resolve;
        child.stdin.end();
      }),
  };
}

/** What the chat-server tests share: a redis-server, the fake provider, and a folder for the servers' history files. */
export interface ChatServerSetting {
  readonly redis: RedisServer;
  readonly provider: FakeProvider;
  readonly dir: string;
}

/** Starts the setting before the enclosing describe block's tests and stops it after them. */
export function useChatServerSetting(folderPrefix: string): ChatServerSetting {
  const setting = {} as { redis: RedisServer; provider: FakeProvider; dir: string };
  beforeAll(async () => {
    [setting.redis, setting.provider] = await Promise.all([startRedis(), startFakeProvider()]);
    setting.dir = mkdtempSync(join(tmpdir(), folderPrefix));
  });
  afterAll(async () => {
    await setting.redis?.stop();
    await setting.provider?.close();
    if (setting.dir) rmSync(setting.dir, { recursive: true, force: true });
  });
  return setting;
}
