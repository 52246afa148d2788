// The register entry points in real subprocesses, exporting over real OTLP/HTTP.

import { describe, expect, it } from 'vitest';
import { startupLine } from '../src/register/startup-line';
import { useRegisterHarness } from './support/register-harness';
import { runNode } from './support/run-node';

const h = useRegisterHarness();
const otlpEnv = h.otlpEnv;

const apps = [
  { flag: '--require', app: 'test/fixtures/agent-app.cjs', agent: 'cjs-agent' },
  { flag: '--import', app: 'test/fixtures/agent-app.mjs', agent: 'esm-agent' },
];

describe.each(apps)('node $flag nous-session-invariant/register ($app)', ({ flag, app, agent }) => {
  it('exports the violation span event and the counter over OTLP/HTTP, without prompt text', async () => {
    const run = await runNode([flag, 'nous-session-invariant/register', app], otlpEnv());
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.code).toBe(0);

    const events = h.receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
    expect(events).toHaveLength(1);
    expect(events[0]!.span).toBe('nous.session.invariant check');
    expect(events[0]!.attributes).toMatchObject({
      'nous.session.invariant.kind': 'extra_message',
      'nous.session.invariant.mode': 'warn',
      'nous.session.invariant.log': 'bound',
      'nous.session.invariant.index': 1,
      'nous.session.invariant.extra.roles': ['user'],
    });

    const points = h.receiver.points('nous.session.invariant.violation');
    expect(points).toEqual([
      {
        metric: 'nous.session.invariant.violation',
        value: 1,
        attributes: {
          'nous.session.invariant.kind': 'extra_message',
          'nous.session.invariant.mode': 'warn',
          'nous.session.invariant.log': 'bound',
          'gen_ai.agent.name': agent,
          'gen_ai.provider.name': 'openai',
        },
      },
    ]);
    expect(h.receiver.points('nous.session.invariant.checks').reduce((n, p) => n + p.value, 0)).toBe(2);
    expect(h.receiver.resourceAttributes().every((r) => r['service.name'] === 'agent-under-test')).toBe(true);
    expect(h.receiver.raw.join('\n')).not.toMatch(/SECRET/);
  });

  it('exports previews when content capture is switched on', async () => {
    const run = await runNode(
      [flag, 'nous-session-invariant/register', app],
      otlpEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }),
    );
    expect(run.code, run.stderr).toBe(0);
    const [event] = h.receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
    expect(event!.attributes['nous.session.invariant.extra.previews']).toEqual(['GHOST-SECRET-TEXT']);
  });
});

describe('strict mode in subprocesses', () => {
  it('with NODE_ENV=production only warns, and says why once', async () => {
    const run = await runNode(
      ['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'],
      otlpEnv({ NODE_ENV: 'production', NOUS_SESSION_INVARIANT: 'strict' }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('agent done');
    expect(run.stderr.match(/only throws in a test environment/g)).toHaveLength(1);
    expect(h.receiver.points('nous.session.invariant.violation')[0]!.attributes['nous.session.invariant.mode']).toBe('warn');
  });

  it('with NODE_ENV=test throws before the request is sent', async () => {
    const sent = h.provider.received.length;
    const run = await runNode(
      ['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'],
      otlpEnv({ NODE_ENV: 'test', NOUS_SESSION_INVARIANT: 'strict' }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agent failed: SessionInvariantViolation');
    expect(h.provider.received.length - sent).toBe(1);
    expect(h.receiver.points('nous.session.invariant.violation')[0]!.attributes['nous.session.invariant.mode']).toBe('strict');
  });
});

describe('register lifecycle', () => {
  it('flushes on SIGTERM and still exits by the signal', async () => {
    const run = await runNode(
      ['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'],
      otlpEnv({ HOLD_OPEN: '1', OTEL_METRIC_EXPORT_INTERVAL: '600000' }),
      {
        onStdout: (out, child) => {
          if (out.includes('agent done') && !child.killed) child.kill('SIGTERM');
        },
      },
    );
    expect(run.signal).toBe('SIGTERM');
    expect(h.receiver.points('nous.session.invariant.violation')).toHaveLength(1);
    expect(h.receiver.events().some((e) => e.name === 'nous.session.invariant.violation')).toBe(true);
  });

  it('an ES module app started with --require alone is told, once, to use --import; with --import it is not', async () => {
    const hint = /is an ES module, and modules it imports are not patched by --require/g;
    const required = await runNode(['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.mjs'], otlpEnv());
    expect(required.stderr.match(hint)).toHaveLength(1);
    for (const args of [
      ['--import', 'nous-session-invariant/register', 'test/fixtures/agent-app.mjs'],
      ['--require', 'nous-session-invariant/register', '--import', 'nous-session-invariant/register', 'test/fixtures/agent-app.mjs'],
      ['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'],
    ]) {
      const run = await runNode(args, otlpEnv());
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(hint);
    }
  });

  it('attaches to an SDK the app already registered instead of starting a second', async () => {
    const run = await runNode(
      ['--require', './test/fixtures/user-sdk.cjs', '--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'],
      otlpEnv(),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('user-sdk saw event nous.session.invariant.violation');
    expect(h.receiver.raw).toEqual([]);
  });

  it('prints each violation once (the warning line) and nothing else when nothing is configured (the embedded default)', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'], {
      FAKE_PROVIDER_URL: h.provider.openaiBaseURL,
    });
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^\[nous-session-invariant\] session invariant violation: extra_message: .* trace [0-9a-f]{32} span [0-9a-f]{16}\./,
    );
    expect(run.stderr).not.toMatch(/SECRET/);
  });

  it("a correct run prints nothing, on stdout beyond the app's own output or on stderr", async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'], {
      FAKE_PROVIDER_URL: h.provider.openaiBaseURL,
      CORRECT_ONLY: '1',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('agent done\n');
    expect(run.stderr).toBe('');
  });

  it('NOUS_SESSION_INVARIANT_PRINT_COUNTERS prints the counters once, at exit, with their totals', async () => {
    for (const correctOnly of ['', '1']) {
      const run = await runNode(['--require', 'nous-session-invariant/register', 'test/fixtures/agent-app.cjs'], {
        FAKE_PROVIDER_URL: h.provider.openaiBaseURL,
        NOUS_SESSION_INVARIANT_PRINT_COUNTERS: 'true',
        OTEL_METRIC_EXPORT_INTERVAL: '100',
        CORRECT_ONLY: correctOnly,
      });
      expect(run.code, run.stderr).toBe(0);
      const counters = run.stderr.split('\n').filter((line) => line.includes('] counter '));
      expect(counters.filter((line) => line.includes('invariant.checks '))).toEqual([
        expect.stringMatching(/counter nous\.session\.invariant\.checks .*"nous\.session\.invariant\.log":"bound".* = (\d+)$/),
      ]);
      expect(counters.find((line) => line.includes('invariant.checks '))!.endsWith(` = ${correctOnly ? 1 : 2}`)).toBe(true);
      expect(counters.filter((line) => line.includes('invariant.violation ')).length).toBe(correctOnly ? 0 : 1);
      // after the app's own output: at exit
      expect(counters.at(-1)).toBe(run.stderr.trim().split('\n').at(-1));
    }
  });

  it('says at start-up, in one line, which shared store keeps the implicit conversations; nothing on the default store', () => {
    expect(startupLine({})).toBeUndefined();
    expect(startupLine({ NOUS_SESSION_INVARIANT_STORE: 'memory' })).toBeUndefined();
    const line = startupLine({ NOUS_SESSION_INVARIANT_STORE: 'redis://user:pw@cache:6379', OTEL_SERVICE_NAME: 'checkout' });
    expect(line).toBe('implicit conversations are kept in the shared store redis://user:***@cache:6379 under the key prefix "checkout"');
    expect(startupLine({ NOUS_SESSION_INVARIANT_STORE: 'redis://cache:6379', NOUS_SESSION_INVARIANT_IMPLICIT: 'false' })).toBeUndefined();
    expect(startupLine({ NOUS_SESSION_INVARIANT_STORE: 'redis://cache:6379', NOUS_SESSION_INVARIANT: 'off' })).toBeUndefined();
  });
});
