// The shared conversation store (issue 25), on the built package against a
// real redis-server on loopback; one run, ratios measured in it.
// - Added latency per call in warn mode: an agent loop through the `openai`
//   client with the Redis store against the same loop with the in-memory
//   store, in interleaved paired rounds (the geometric mean of per-round
//   ratios, with its 95% interval, `pairedRatio`). Twice: the loopback
//   provider answering at once (the store's round trips have nothing to
//   hide behind) and after PROVIDER_MS (a fast real provider).
//   Target: within the interval of 1.00.
// - Store round trips and commands per request, from Redis's own command
//   counts (INFO commandstats), the store's writes (off the caller's path)
//   waited for before Redis is asked. Target: at most 2.
// - Stalls with Redis stopped (SIGSTOP) for a whole run of 150 calls: how
//   many took longer than the in-memory median + 50 ms, and the slowest.
//   Target: none.
// - Redis memory per conversation of 100 and 1,000 messages (MEMORY USAGE
//   of its key).
// Skipped with one line when redis-server is not installed.

import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { SessionInvariantInstrumentation } from '../dist/instrumentation';
import { implicitStoreIdle } from '../dist/request-path/implicit/registry';
import { freePort, findProgram } from '../stack/native';
import { fmt, median, pairedRatio } from './support';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const CALLS = 8;
const PROVIDER_MS = Number(process.env.BENCH_PROVIDER_MS ?? 50);

async function main(): Promise<void> {
  if (findProgram('redis-server') === undefined) {
    console.log('bench/store: skipped, redis-server is not installed (apt-get install redis-server)');
    return;
  }
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const redis = new Redis(port, '127.0.0.1');
  redis.on('error', () => {}); // refused until the server is up: waitForRedis retries
  try {
    await waitForRedis(redis);
    await run(redis, `redis://127.0.0.1:${port}`, server);
    // The figures move with the machine's load more than with the package: said with them.
    console.log(
      `store: load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} (1, 5, 15 min)`,
    );
  } finally {
    redis.disconnect();
    server.kill('SIGCONT');
    server.kill('SIGKILL');
  }
}

async function run(redis: Redis, url: string, server: ChildProcess): Promise<void> {
  let delayMs = 0;
  let served = 0;
  const provider = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({
        id: `chatcmpl-${++served}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'bench',
        choices: [{ index: 0, message: { role: 'assistant', content: `answer ${served}` }, finish_reason: 'stop', logprobs: null }],
      });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  const { OpenAI } = await import('openai');
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
  type Messages = Parameters<typeof client.chat.completions.create>[0]['messages'];

  const memory = { mode: 'warn' as const, implicit: { store: 'memory' } };
  const shared = { mode: 'warn' as const, implicit: { store: url, storePrefix: 'bench' } };
  let conversation = 0;
  /** An agent loop of CALLS requests, a conversation of its own: the time it took. */
  async function loop(): Promise<number> {
    const history: Messages = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: `Conversation ${++conversation}: plan a trip.` },
    ];
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      const reply = (await client.chat.completions.create({ model: 'bench', messages: history })).choices[0]!.message;
      history.push({ role: 'assistant', content: reply.content }, { role: 'user', content: `And step ${i}?` });
    }
    return Number(process.hrtime.bigint() - start);
  }
  /** One side's loop, its store in force and warm (a Redis connection opened by an untimed call). */
  async function side(config: typeof memory | typeof shared): Promise<number> {
    instrumentation.setConfig(config);
    await loop();
    return loop();
  }

  for (const delay of [0, PROVIDER_MS]) {
    delayMs = delay;
    const rounds = delay === 0 ? ROUNDS : Math.max(10, Math.round(ROUNDS / 3));
    const withMemory: number[] = [];
    const withRedis: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // Interleaved, the order alternating, so drift hits both alike.
      if (r % 2 === 0) {
        withMemory.push(await side(memory));
        withRedis.push(await side(shared));
      } else {
        withRedis.push(await side(shared));
        withMemory.push(await side(memory));
      }
    }
    const estimate = pairedRatio(withRedis, withMemory);
    const perCall = (xs: number[]) => fmt(median(xs) / CALLS);
    console.log(
      `store, provider answering after ${delay} ms: Redis store / in-memory store = ${estimate.text} per call ` +
        `(${rounds} rounds of ${CALLS} calls; median per call ${perCall(withRedis)} vs ${perCall(withMemory)})`,
    );
  }

  // Round trips per request, as Redis counts its commands.
  delayMs = 0;
  instrumentation.setConfig(shared);
  await loop();
  await redis.config('RESETSTAT');
  const loops = 10;
  for (let i = 0; i < loops; i++) await loop();
  await implicitStoreIdle();
  const calls = commandCalls(await redis.info('commandstats'));
  const requests = loops * CALLS;
  const per = (n: number) => (n / requests).toFixed(2);
  console.log(
    `store round trips per request: ${per(calls.roundTrips)} (reads ${per(calls.hmget)}, compare-and-set writes ${per(calls.writes)}); ` +
      `commands per request: ${per(calls.commands)} (reply marks asked ${per(calls.get)} and set ${per(calls.set)}, each sent with a read or a write)`,
  );

  // Redis memory per conversation: one conversation grown to 100 and to 1,000 messages.
  for (const size of [100, 1_000]) {
    // A prefix of its own: its one key is the conversation's.
    instrumentation.setConfig({ mode: 'warn', implicit: { store: url, storePrefix: `bench-${size}` } });
    const history: Messages = [{ role: 'user', content: `Memory conversation of ${size} messages` }];
    while (history.length < size - 1) {
      const reply = (await client.chat.completions.create({ model: 'bench', messages: history })).choices[0]!.message;
      history.push({ role: 'assistant', content: reply.content }, { role: 'user', content: `Next ${history.length}` });
    }
    await client.chat.completions.create({ model: 'bench', messages: history });
    const usage = async (key: string) => Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    const [key] = await redis.keys(`bench-${size}:nsi:conv:*`);
    const bytes = key === undefined ? NaN : await usage(key);
    // The marks of its observed replies, one key each (for other processes, docs/shared-store.md).
    const marks = await redis.keys(`bench-${size}:nsi:reply:*`);
    let markBytes = 0;
    for (const mark of marks) markBytes += await usage(mark);
    console.log(
      `Redis memory for a conversation of ${size} messages: ${bytes} bytes (${(bytes / size).toFixed(1)} bytes a message), ` +
        `and ${markBytes} bytes for the marks of its ${marks.length} replies (${(markBytes / Math.max(1, marks.length)).toFixed(0)} bytes each)`,
    );
  }
  // Stalls with Redis stopped (SIGSTOP: there, but answering nothing) for a whole run: each call timed on its own,
  // against the in-memory store's median, the provider answering at once.
  delayMs = 0;
  const single = async (config: typeof memory | typeof shared, calls: number): Promise<number[]> => {
    instrumentation.setConfig(config);
    const times: number[] = [];
    const history: Messages = [{ role: 'user', content: `Stall run ${++conversation}` }];
    for (let i = 0; i < calls; i++) {
      const start = process.hrtime.bigint();
      const reply = (await client.chat.completions.create({ model: 'bench', messages: history })).choices[0]!.message;
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      history.push({ role: 'assistant', content: reply.content }, { role: 'user', content: `Next ${i}` });
      // A pause now and then, as between a user's messages (the store is probed again after each second).
      if (i % 15 === 14) await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    return times;
  };
  const memoryTimes = await single(memory, 150);
  server.kill('SIGSTOP');
  let stopped: number[];
  try {
    stopped = await single({ mode: 'warn', implicit: { store: url, storePrefix: 'bench-stopped' } }, 150);
    await implicitStoreIdle();
  } finally {
    server.kill('SIGCONT');
  }
  const limit = median(memoryTimes) + 50;
  const slow = stopped.filter((ms) => ms > limit);
  console.log(
    `Redis stopped for a whole run of ${stopped.length} calls: ${slow.length} slower than the in-memory median + 50 ms ` +
      `(${limit.toFixed(1)} ms); slowest ${Math.max(...stopped).toFixed(1)} ms, median ${median(stopped).toFixed(2)} ms ` +
      `(in-memory median ${median(memoryTimes).toFixed(2)} ms)`,
  );
  instrumentation.disable();
  provider.close();
}

/**
 * Round trips and commands, from Redis's command counts: each round trip has
 * exactly one HMGET (a read) or one EVALSHA / EVAL (a compare-and-set write);
 * the GETs and SETs of reply marks travel with them.
 */
function commandCalls(info: string): { roundTrips: number; commands: number; hmget: number; writes: number; get: number; set: number } {
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  const hmget = calls('hmget');
  const writes = calls('evalsha') + calls('eval');
  // Marks are asked with one MGET on one server (a GET each on a Cluster).
  const [get, set] = [calls('get') + calls('mget'), calls('set')];
  return { roundTrips: hmget + writes, commands: hmget + writes + get + set, hmget, writes, get, set };
}

async function waitForRedis(redis: Redis): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await redis.ping()) === 'PONG') return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
