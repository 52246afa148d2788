// The shared conversation store for `npm run stack`: Debian's redis-server,
// when installed, on loopback (6379 when free), nothing persisted. Optional:
// the rest of the stack runs without it.

import { spawn } from 'node:child_process';
import { findProgram, freePort } from './native';

export interface StackRedis {
  url: string;
  stop(): void;
}

/** Starts redis-server, or returns undefined when it is not installed. */
export async function startStackRedis(): Promise<StackRedis | undefined> {
  const program = findProgram('redis-server');
  if (program === undefined) return undefined;
  const port = (await portFree(6379)) ? 6379 : await freePort();
  const child = spawn(program, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  return { url: `redis://127.0.0.1:${port}`, stop: () => void child.kill('SIGTERM') };
}

async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
