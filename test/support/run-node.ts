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

/**
 * How long a subprocess may run before it is taken to hang: far above the few
 * seconds an app takes, so that a loaded 2-core machine never reaches it.
 */
export const DEFAULT_DEADLINE_MS = 60_000;

/** The last `max` characters of a process's output, for an error message. */
function tail(text: string, max = 2_000): string {
  return text.length <= max ? text : `...${text.slice(-max)}`;
}

/**
 * Runs `node args` and resolves with how it ended. A process still running at
 * its deadline is killed, and the promise rejects with an error naming the
 * command and what it printed, so a hang reads as a hang and not as a failed
 * expectation on empty output.
 */
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
  const deadline = options.timeoutMs ?? DEFAULT_DEADLINE_MS;
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, deadline);
  return new Promise((resolve, reject) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!hung) return resolve({ code, signal, stdout, stderr });
      const command = `node ${args.join(' ')}`;
      reject(new Error(`${command} did not exit within ${deadline} ms and was killed\nstdout:\n${tail(stdout)}\nstderr:\n${tail(stderr)}`));
    });
  });
}
