// A real redis-server (Debian's package) on a free loopback port, started and
// stopped by the test, with no persistence; and the chat-server workers that
// share it (test/fixtures/store/chat-server.cjs).

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
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

/** `password`: the server asks for it (`--requirepass`), and the test's own client gives it. */
export async function startRedis(options: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  const auth = options.password === undefined ? [] : ['--requirepass', options.password];
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...auth], {
      stdio: 'ignore',
    });
    started.add(server);
    server.once('exit', () => started.delete(server));
    child = server;
    await waitForPing(port, options.password);
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
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, password: options.password });
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

/** Whether redis-server and redis-cli (for `--cluster create`) are installed. */
export function redisClusterInstalled(what: string): boolean {
  return requireProgram('redis-server', what) && requireProgram('redis-cli', what);
}

/** A Redis Cluster of three masters (no replicas) on loopback, each in a folder of its own for its nodes.conf. */
export interface RedisCluster {
  /** `redis+cluster://` with every node as a seed. */
  readonly url: string;
  readonly ports: readonly number[];
  /** A Cluster client of the test's own. */
  readonly client: Cluster;
  /** Kills node `i` (SIGKILL) and starts it again on its port, its slots kept (its nodes.conf), its keys lost. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'nsi-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const nodes: Array<ChildProcess | undefined> = [];
  const launch = async (i: number): Promise<void> => {
    const port = ports[i]!;
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000');
    const server = spawn('redis-server', args, { cwd: dir, stdio: 'ignore' });
    started.add(server);
    server.once('exit', () => started.delete(server));
    nodes[i] = server;
    await waitForPing(port);
  };
  const kill = async (i: number): Promise<void> => {
    const running = nodes[i];
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  const stopAll = async () => {
    await Promise.all(ports.map((_, i) => kill(i)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(ports.map((_, i) => launch(i)));
    const seeds = ports.map((p) => `127.0.0.1:${p}`);
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
    });
    await clusterReady(ports);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const client = new Cluster(
    ports.map((port) => ({ host: '127.0.0.1', port })),
    { redisOptions: { maxRetriesPerRequest: 1 } },
  );
  client.on('error', () => {});
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    client,
    restart: async (i) => {
      await kill(i);
      await launch(i);
      await clusterReady(ports);
    },
    stop: async () => {
      client.disconnect();
      await stopAll();
    },
  };
}

/** Waits until every node says the cluster is ok (all slots served). */
async function clusterReady(ports: readonly number[]): Promise<void> {
  await until(
    'the Redis Cluster to be ok on every node',
    async () => {
      for (const port of ports) {
        const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => {});
        try {
          await probe.connect();
          if (!String(await probe.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) return undefined;
        } finally {
          probe.disconnect();
        }
      }
      return true;
    },
    20_000,
    100,
  );
}

async function waitForPing(port: number, password?: string): Promise<void> {
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, password });
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
}

/** One turn's outcome on a worker: the violation kinds its requests raised, and an error if the call failed. */
export interface TurnResult {
  id: string;
  violations: string[];
  /** The `gen_ai.conversation.id` of each violation. */
  conversations: string[];
  /** The violation warning lines themselves. */
  lines: string[];
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

/** Each fault of the history store, applied on turn FAULTY_TURN, and the kind it must be reported as. */
export const FAULTS: ReadonlyArray<[fault: string, kind: string]> = [
  ['drop_tool_result', 'missing_message'],
  ['edit_user', 'missing_message'],
  ['lost_reply', 'missing_message'],
  ['duplicate', 'extra_message'],
  ['invented', 'extra_message'],
  ['reorder', 'order'],
];
const TURNS = 6;
export const FAULTY_TURN = 4;

/**
 * Runs every conversation (one per fault, and a correct one) turn by turn on
 * two chat-server workers, turn k on worker k mod 2, as a load balancer's
 * round robin does; checks that the workers exit by themselves once their
 * input closes (an open connection to the store does not hold them).
 */
export async function serveRoundRobin(
  providerUrl: string,
  dir: string,
  env: Record<string, string>,
): Promise<{ results: Map<string, TurnResult[]>; ioredis: boolean[]; notices: string[][] }> {
  const workers: Worker[] = [0, 1].map(() => startWorker({ FAKE_PROVIDER_URL: providerUrl, ...env }));
  const conversations: Array<[name: string, fault: string | undefined]> = [
    ['correct', undefined],
    ...FAULTS.map(([fault]) => [fault, fault] as [string, string]),
  ];
  const results = new Map<string, TurnResult[]>(conversations.map(([name]) => [name, []]));
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      await Promise.all(
        conversations.map(async ([name, fault]) => {
          const file = join(dir, `${env.NOUS_SESSION_INVARIANT_STORE_PREFIX ?? 'memory'}-${name}.json`);
          const result = await workers[turn % 2]!.send({
            id: `${name}-${turn}`,
            file,
            user: `${name} PROMPT-TEXT message ${turn}`,
            fault: turn === FAULTY_TURN ? fault : undefined,
          });
          results.get(name)!.push(result);
        }),
      );
    }
    const ends = await Promise.all(workers.map((w) => w.close()));
    const exits = workers.map((w) => (w.child.exitCode !== null ? Promise.resolve() : once(w.child, 'exit').then(() => undefined)));
    const held = await Promise.race([
      Promise.all(exits).then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10_000)),
    ]);
    if (held) throw new Error('a worker still running 10 s after its input closed');
    return { results, ioredis: ends.map((end) => end.ioredis), notices: ends.map((end) => end.notices) };
  } finally {
    for (const worker of workers) worker.child.kill();
  }
}

/** Each fault reported once, with its kind, on its turn, by the process that sent it; the correct conversation silent; no call failed. */
export function expectEachFaultReportedOnce(results: ReadonlyMap<string, TurnResult[]>): void {
  for (const [name, turns] of results) {
    for (const t of turns) expect(t.error, `${t.id}`).toBeUndefined();
    const expected = FAULTS.find(([fault]) => fault === name)?.[1];
    const reported = turns.map((t) => t.violations);
    expect(reported, name).toEqual(turns.map((_, i) => (expected !== undefined && i + 1 === FAULTY_TURN ? [expected] : [])));
  }
}
