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
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !TEST_MARKERS.includes(k) && !OTEL_PREFIX.test(k)));
  const child = spawn(options.node ?? process.execPath, args, {
    cwd: options.cwd ?? PACKAGE_ROOT,
    env: { ...base, ...env },
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
