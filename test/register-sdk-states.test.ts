// `withSession` binds whatever the OpenTelemetry SDK's state: disabled with
// OTEL_SDK_DISABLED, absent, or registered without a context manager. With no
// telemetry exported, a bound violation is still printed, and thrown in strict
// mode under NODE_ENV=test.

import { describe, expect, it } from 'vitest';
import { useRegisterHarness } from './support/register-harness';
import { runNode } from './support/run-node';

const APP = 'test/fixtures/agent-app.cjs';
const h = useRegisterHarness();
const BOUND_WARNING = /session invariant violation: extra_message: .*; agent cjs-agent, conversation /;

const setups: Array<{ name: string; preload: string[]; env: Record<string, string> }> = [
  {
    name: 'OTEL_SDK_DISABLED=true under register',
    preload: ['--require', 'nous-session-invariant/register'],
    env: { OTEL_SDK_DISABLED: 'true' },
  },
  { name: 'no SDK at all (the API alone)', preload: ['--require', './test/fixtures/no-sdk.cjs'], env: {} },
];

describe.each(setups)('$name', ({ preload, env }) => {
  it('prints the bound violation once, with the agent bound along with the log', async () => {
    const run = await runNode([...preload, APP], { FAKE_PROVIDER_URL: h.provider.openaiBaseURL, ...env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('agent done');
    expect(run.stderr.match(new RegExp(BOUND_WARNING, 'g')), run.stderr).toHaveLength(1);
  });

  it('in strict mode under NODE_ENV=test throws before the invented message is sent', async () => {
    const sent = h.provider.received.length;
    const run = await runNode([...preload, APP], {
      FAKE_PROVIDER_URL: h.provider.openaiBaseURL,
      NODE_ENV: 'test',
      NOUS_SESSION_INVARIANT: 'strict',
      ...env,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/agent failed: SessionInvariantViolation/);
    expect(h.provider.received.length - sent).toBe(1);
  });
});

describe('OTEL_SDK_DISABLED=true', () => {
  it('exports nothing, and says nothing about the SDK', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', APP], h.otlpEnv({ OTEL_SDK_DISABLED: 'true' }));
    expect(run.code, run.stderr).toBe(0);
    expect(h.receiver.raw).toEqual([]);
  });
});
