// The observability stack of docker/compose.yaml without Docker: the
// Collector and Jaeger built by stack/build.sh, Prometheus and Alertmanager
// from the system's packages, the package's own violation viewer (dist/viewer,
// run by this Node), each started with the repository's own config
// files, their addresses moved to loopback (stack/loopback.ts). Used by
// `npm run stack` and by the end-to-end test.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { DOCKER_DIR, readCompose, type ComposeService } from './compose';
import { toLoopback } from './loopback';

export const STACK_BIN = resolve(__dirname, 'bin');
/** The viewer compose mounts: `npm run build` makes it. */
const VIEWER_BIN = resolve(__dirname, '..', 'dist', 'viewer', 'bin.js');

/** The services run natively, peers first; Grafana is left to Docker. */
export const NATIVE_SERVICES = ['jaeger', 'viewer', 'collector', 'alertmanager', 'prometheus'] as const;
export type NativeService = (typeof NATIVE_SERVICES)[number];

export interface StackOptions {
  /**
   * `published`: the host ports compose publishes (4318, 16686, 9090, ...)
   * and free ports for the rest; `free`: free ports for everything (tests).
   */
  ports?: 'published' | 'free';
  /** Environment for the services and for compose's interpolation. */
  env?: NodeJS.ProcessEnv;
  /** How long each service may take to answer, in ms. */
  readyTimeoutMs?: number;
}

export interface NativeStack {
  /** The loopback port standing for a service's container port. */
  port(service: NativeService, containerPort: number): number;
  /** `http://127.0.0.1:PORT` of a service's container port. */
  url(service: NativeService, containerPort: number): string;
  /** The folder holding the derived configs, data and each service's log. */
  dir: string;
  /** The last lines a service printed. */
  log(service: NativeService): string;
  /** Stops every process (TERM, then KILL after 5 s) and removes the folder. */
  stop(): Promise<void>;
}

/** The path of `name` on PATH, or undefined. */
export function findProgram(name: string): string | undefined {
  try {
    return execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The program each service runs, by the name the system or stack/build.sh gives it. */
function program(service: NativeService): string {
  if (service === 'collector') return join(STACK_BIN, 'otelcol-nous');
  if (service === 'jaeger') return join(STACK_BIN, 'jaeger');
  if (service === 'viewer') return process.execPath;
  // Debian calls Alertmanager prometheus-alertmanager.
  const names = service === 'alertmanager' ? ['alertmanager', 'prometheus-alertmanager'] : [service];
  for (const name of names) {
    const path = findProgram(name);
    if (path !== undefined) return path;
  }
  throw new Error(
    `${names.join(' or ')} is not installed (Debian: apt-get install ${service === 'alertmanager' ? 'prometheus-alertmanager' : service})`,
  );
}

/** The programs of the native stack that are not there, each with what to do about it. */
export function missingPrograms(services: readonly NativeService[] = NATIVE_SERVICES): string[] {
  const missing: string[] = [];
  for (const service of services) {
    let path: string;
    try {
      path = program(service);
    } catch (error) {
      missing.push((error as Error).message);
      continue;
    }
    try {
      statSync(service === 'viewer' ? VIEWER_BIN : path);
    } catch {
      missing.push(service === 'viewer' ? `${VIEWER_BIN} is not built (npm run build)` : `${path} is not built (npm run stack:build)`);
    }
  }
  return missing;
}

/** Listens on `port` of 127.0.0.1 (0: any) and closes again: the port it got, or undefined when it is taken. */
async function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolvePort(bound));
    });
  });
}

/** A port nothing listens on now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

/**
 * Every (service, container port) the stack needs on loopback: what compose
 * publishes, and every address the config files name (found by a dry run of
 * the derivation).
 */
function neededPorts(compose: Map<string, ComposeService>, running: ReadonlySet<string>): Set<string> {
  const needed = new Set<string>();
  for (const name of NATIVE_SERVICES) {
    const service = compose.get(name)!;
    for (const port of service.published.keys()) needed.add(`${name}:${port}`);
    for (const mount of service.mounts) {
      if (statSync(mount.source).isDirectory()) continue;
      toLoopback(readFileSync(mount.source, 'utf8'), name, running, (peer, port) => {
        needed.add(`${peer}:${port}`);
        return port;
      });
    }
  }
  return needed;
}

/** The arguments the native process needs beyond compose's: where to listen and keep data. */
function nativeArgs(
  service: NativeService,
  dir: string,
  port: (p: number) => number,
  url: (s: NativeService, p: number) => string,
): string[] {
  // The viewer takes its flags' last values: loopback, its loopback ports, and the Jaeger this stack runs.
  if (service === 'viewer')
    return ['--host', '127.0.0.1', '--otlp-port', String(port(4318)), '--port', String(port(4320)), '--jaeger', url('jaeger', 16686)];
  if (service === 'prometheus')
    return [`--storage.tsdb.path=${join(dir, 'prometheus-data')}`, `--web.listen-address=127.0.0.1:${port(9090)}`];
  if (service === 'alertmanager')
    return [`--storage.path=${join(dir, 'alertmanager-data')}`, `--web.listen-address=127.0.0.1:${port(9093)}`];
  return [];
}

/** The URL that answers once a service is up. */
function readiness(service: NativeService, url: (p: number) => string): { url: string; anyStatus: boolean } {
  if (service === 'collector') return { url: `${url(4318)}/v1/traces`, anyStatus: true }; // GET gets 405 once it listens
  if (service === 'jaeger') return { url: `${url(16686)}/api/services`, anyStatus: false };
  if (service === 'viewer') return { url: `${url(4320)}/`, anyStatus: false };
  if (service === 'prometheus') return { url: `${url(9090)}/-/ready`, anyStatus: false };
  return { url: `${url(9093)}/-/ready`, anyStatus: false };
}

async function waitReady(
  service: NativeService,
  check: { url: string; anyStatus: boolean },
  child: ChildProcess,
  timeoutMs: number,
  log: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${service} exited (${child.exitCode ?? child.signalCode}):\n${log()}`);
    try {
      const response = await fetch(check.url, { signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      if (check.anyStatus || response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${service} did not answer on ${check.url} within ${timeoutMs} ms:\n${log()}`);
}

/** Writes a service's mounted files into `dir`, at their place under docker/, with loopback addresses. */
function deriveFiles(
  service: ComposeService,
  dir: string,
  running: ReadonlySet<string>,
  portFor: (s: string, p: number) => number,
): Map<string, string> {
  const placed = new Map<string, string>(); // container path -> derived path
  for (const mount of service.mounts) {
    // A folder outside docker/ (the built viewer) is used where it is: it holds no address to move.
    if (relative(DOCKER_DIR, mount.source).startsWith('..')) {
      placed.set(mount.target, mount.source);
      continue;
    }
    const derived = join(dir, relative(DOCKER_DIR, mount.source));
    mkdirSync(dirname(derived), { recursive: true });
    if (statSync(mount.source).isDirectory()) cpSync(mount.source, derived, { recursive: true });
    else writeFileSync(derived, toLoopback(readFileSync(mount.source, 'utf8'), service.name, running, portFor).text);
    placed.set(mount.target, derived);
  }
  return placed;
}

export async function startStack(options: StackOptions = {}): Promise<NativeStack> {
  const env = options.env ?? process.env;
  const compose = readCompose(env);
  const running = new Set<string>(NATIVE_SERVICES);
  const dir = mkdtempSync(join(tmpdir(), 'nous-stack-'));

  const ports = new Map<string, number>();
  for (const key of neededPorts(compose, running)) {
    const [name, containerPort] = key.split(':') as [string, string];
    const published = options.ports === 'free' ? undefined : compose.get(name)!.published.get(Number(containerPort));
    // A published port taken by another program would answer the readiness check for ours.
    if (published !== undefined && (await tryListen(published)) === undefined) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`port ${published} (${key} in docker/compose.yaml) is in use on 127.0.0.1: stop what listens there`);
    }
    ports.set(key, published ?? (await freePort()));
  }
  const portFor = (service: string, containerPort: number): number => {
    const port = ports.get(`${service}:${containerPort}`);
    if (port === undefined) throw new Error(`no loopback port for ${service}:${containerPort}`);
    return port;
  };
  const url = (service: NativeService, containerPort: number) => `http://127.0.0.1:${portFor(service, containerPort)}`;

  const children = new Map<NativeService, ChildProcess>();
  const logPath = (service: NativeService) => join(dir, `${service}.log`);
  const log = (service: NativeService) => {
    try {
      return readFileSync(logPath(service), 'utf8').split('\n').slice(-40).join('\n');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // Peers first: Jaeger before the collector, Alertmanager before Prometheus.
    for (const name of NATIVE_SERVICES) {
      const service = compose.get(name)!;
      const placed = deriveFiles(service, dir, running, portFor);
      const args = service.args.map((arg) => [...placed].reduce((text, [target, path]) => text.split(target).join(path), arg));
      const out = openSync(logPath(name), 'a');
      const child = spawn(program(name), [...args, ...nativeArgs(name, dir, (p) => portFor(name, p), url)], {
        cwd: dir,
        env,
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      // A program that cannot be started: said in its log, which the readiness timeout shows.
      child.once('error', (error) => appendFileSync(logPath(name), `${String(error)}\n`));
      children.set(name, child);
      await waitReady(
        name,
        readiness(name, (p) => url(name, p)),
        child,
        options.readyTimeoutMs ?? 30_000,
        () => log(name),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { port: (service, containerPort) => portFor(service, containerPort), url, dir, log, stop };
}
