// What `register` costs and exports around the process's end: bounded exit
// with a backend that is down or silent, process.exit, the resource it
// reports, and partial set-ups it attaches to.

import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useRegisterHarness } from './support/register-harness';
import { runNode } from './support/run-node';

const APP = 'test/fixtures/agent-app.cjs';
const h = useRegisterHarness();
const otlpEnv = h.otlpEnv;

/** A collector that accepts connections and never answers. */
async function startSilentCollector(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A collector that answers each export's headers at once, then its body one
 * byte every 300 ms for a minute: each byte resets an idle timeout.
 */
async function startTricklingCollector(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const timer = setInterval(() => (++sent > 200 ? res.end() : res.write(' ')), 300);
    timers.add(timer);
    res.on('close', () => clearInterval(timer));
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Runs the agent with `register` and measures from its last line of work to the process's end. */
async function timeExit(env: Record<string, string>): Promise<{ afterWorkMs: number; stderr: string; code: number | null }> {
  let doneAt = 0;
  const run = await runNode(
    ['--require', 'nous-session-invariant/register', APP],
    { FAKE_PROVIDER_URL: h.provider.openaiBaseURL, ...env },
    {
      timeoutMs: 30_000,
      onStdout: (out) => {
        if (!doneAt && out.includes('agent done')) doneAt = Date.now();
      },
    },
  );
  expect(doneAt, run.stderr).toBeGreaterThan(0);
  return { afterWorkMs: Date.now() - doneAt, stderr: run.stderr, code: run.code };
}

describe('exit with a failing backend', () => {
  // Documented bound: an export already under way plus the flush at exit, each
  // at most the default export timeout (2 s), with slack for a loaded machine;
  // the exporters' own 10 s timeout (before) overshoots it either way.
  const BOUND_MS = 7_000;

  it('a collector that never answers delays exit by at most the documented bound, even with a 1 s metric interval', async () => {
    const silent = await startSilentCollector();
    try {
      for (const interval of ['1000', '60000']) {
        const { afterWorkMs, code } = await timeExit({
          OTEL_EXPORTER_OTLP_ENDPOINT: silent.endpoint,
          OTEL_METRIC_EXPORT_INTERVAL: interval,
        });
        expect(code).toBe(0);
        expect(afterWorkMs).toBeLessThan(BOUND_MS);
      }
    } finally {
      await silent.close();
    }
  });

  it.each(['http/protobuf', 'http/json'])(
    'a collector that trickles its answer (%s) delays exit by at most the documented bound',
    async (protocol) => {
      const trickling = await startTricklingCollector();
      try {
        const { afterWorkMs, code } = await timeExit({
          OTEL_EXPORTER_OTLP_ENDPOINT: trickling.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_METRIC_EXPORT_INTERVAL: '1000',
        });
        expect(code).toBe(0);
        expect(afterWorkMs).toBeLessThan(BOUND_MS);
      } finally {
        await trickling.close();
      }
    },
    40_000,
  );

  it('a closed collector port delays exit by at most the documented bound', async () => {
    const { afterWorkMs, code } = await timeExit({ OTEL_EXPORTER_OTLP_ENDPOINT: await closedPort(), OTEL_METRIC_EXPORT_INTERVAL: '1000' });
    expect(code).toBe(0);
    expect(afterWorkMs).toBeLessThan(BOUND_MS);
  });

  it('configuring traces alone leaves metrics on the console default rather than an OTLP endpoint nobody runs', async () => {
    const { afterWorkMs, stderr } = await timeExit({ OTEL_TRACES_EXPORTER: 'none', NOUS_SESSION_INVARIANT_PRINT_COUNTERS: 'true' });
    expect(stderr).toContain('counter nous.session.invariant.violation');
    expect(afterWorkMs).toBeLessThan(1_500);
  });
});

describe('process.exit', () => {
  it('right after a violation says on stderr that the violation may not have been exported', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', APP], { ...otlpEnv(), EXIT_NOW: '1' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/exited before its telemetry was flushed: 1 violation\(s\)/);
  });

  it('after awaiting shutdown() from the register entry point exports the violation and says nothing', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', APP], { ...otlpEnv(), EXIT_AFTER_SHUTDOWN: '1' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/before its telemetry was flushed/);
    expect(h.receiver.points('nous.session.invariant.violation')).toHaveLength(1);
    expect(h.receiver.events().filter((e) => e.name === 'nous.session.invariant.violation')).toHaveLength(1);
  });
});

describe('the resource register reports', () => {
  it('carries no command-line arguments, which may hold a prompt, by default', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', APP, 'ARGV-PROMPT-TEXT: what is the weather?'], otlpEnv());
    expect(run.code, run.stderr).toBe(0);
    const resources = h.receiver.resourceAttributes();
    expect(resources.length).toBeGreaterThan(0);
    for (const attributes of resources) {
      expect(attributes).not.toHaveProperty('process.command_args');
      expect(attributes['process.pid']).toEqual(expect.any(Number));
    }
    expect(h.receiver.raw.join('\n')).not.toContain('ARGV-PROMPT-TEXT');
  });

  it('carries them again when NOUS_SESSION_INVARIANT_RESOURCE_COMMAND_ARGS=true', async () => {
    const run = await runNode(
      ['--require', 'nous-session-invariant/register', APP, 'ARGV-PROMPT-TEXT'],
      otlpEnv({ NOUS_SESSION_INVARIANT_RESOURCE_COMMAND_ARGS: 'true' }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(h.receiver.resourceAttributes()[0]!['process.command_args']).toContain('ARGV-PROMPT-TEXT');
  });

  it('follows OTEL_NODE_RESOURCE_DETECTORS', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', APP], otlpEnv({ OTEL_NODE_RESOURCE_DETECTORS: 'none' }));
    expect(run.code, run.stderr).toBe(0);
    expect(h.receiver.resourceAttributes()[0]).not.toHaveProperty('process.pid');
  });
});

describe('attaching to a partial set-up', () => {
  it('an app that registered only a MeterProvider gets a context manager, so its bound session is checked', async () => {
    const run = await runNode(['--require', './test/fixtures/meter-only-sdk.cjs', '--require', 'nous-session-invariant/register', APP], {
      FAKE_PROVIDER_URL: h.provider.openaiBaseURL,
    });
    expect(run.code, run.stderr).toBe(0);
    const seen = run.stdout.split('\n').filter((line) => line.startsWith('meter-only saw violation'));
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.slice('meter-only saw violation '.length))).toMatchObject({
      'nous.session.invariant.kind': 'extra_message',
      'nous.session.invariant.log': 'bound',
      'gen_ai.agent.name': 'cjs-agent',
    });
  });
});
