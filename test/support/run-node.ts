// Runs `node` in a subprocess from the package root, outside any test-runner
// environment unless asked, bounded in time.

import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const PACKAGE_ROOT = join(__dirname, '..', '..');

export interface NodeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const TEST_MARKERS = ['VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'NODE_TEST_CONTEXT', 'JEST_WORKER_ID', 'NODE_ENV', 'NODE_OPTIONS'];
const OTEL_PREFIX = /^OTEL_|^NOUS_SESSION_INVARIANT$/;

/** This process's environment less the test runner's markers, NODE_OPTIONS and any OTEL_* or NOUS_SESSION_INVARIANT setting: what an app starts with. */
export function appEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !TEST_MARKERS.includes(entry[0]) && !OTEL_PREFIX.test(entry[0]),
    ),
  );
}

export function runNode(
  args: string[],
  env: Record<string, string>,
  options: {
    timeoutMs?: number;
    onStdout?: (text: string, child: ReturnType<typeof spawn>) => void;
    node?: string;
    cwd?: string;
  } = {},
): Promise<NodeRun> {
  const child = spawn(options.node ?? process.execPath, args, {
    cwd: options.cwd ?? PACKAGE_ROOT,
    env: { ...appEnvironment(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    options.onStdout?.(stdout, child);
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
