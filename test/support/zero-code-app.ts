// An unmodified app run with only the register line, exporting OTLP/JSON to a
// receiver of its own: what the zero-code tests read back.

import { expect } from 'vitest';
import type { FakeProvider } from './fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver';
import { runNode } from './run-node';

/** What a zero-code run exported. */
export interface ZeroCodeRun {
  /** The kinds of the violations, one per count, sorted. */
  kinds: string[];
  /** The checks counted. */
  checks: number;
  /** The logs (`bound`, `implicit`) the violations and checks were against. */
  logs: unknown[];
  /** The providers (`gen_ai.provider.name`) the checks were counted for. */
  providers: unknown[];
  stderr: string;
}

/**
 * Runs `script` (a path from the package root) with `--require
 * nous-session-invariant/register`, or `--import` for an .mjs app, against
 * `provider` (`env` may point it elsewhere); the app must print `agent done`.
 * Its receiver joins `receivers`, which the caller closes.
 */
export function runZeroCodeApp(
  script: string,
  env: Record<string, string>,
  provider: FakeProvider,
  receivers: OtlpReceiver[],
): Promise<ZeroCodeRun> {
  return runRegisteredApp(
    script,
    { FAKE_PROVIDER_URL: provider.openaiBaseURL, FAKE_ANTHROPIC_URL: provider.anthropicBaseURL, ...env },
    receivers,
  );
}

/**
 * `runZeroCodeApp` with the app's whole environment given: for an app of
 * another provider. `cwd`: a project of its own, whose installed package
 * `register` is then loaded from.
 */
export async function runRegisteredApp(
  script: string,
  env: Record<string, string>,
  receivers: OtlpReceiver[],
  cwd?: string,
): Promise<ZeroCodeRun> {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const flag = script.endsWith('.mjs') ? '--import' : '--require';
  const run = await runNode(
    [flag, 'nous-session-invariant/register', script],
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      ...env,
    },
    cwd === undefined ? {} : { cwd },
  );
  expect(run.stdout, run.stderr).toContain('agent done');
  const violations = receiver.points('nous.session.invariant.violation');
  const checks = receiver.points('nous.session.invariant.checks');
  return {
    kinds: violations.flatMap((p) => Array<string>(p.value).fill(p.attributes['nous.session.invariant.kind'] as string)).sort(),
    checks: checks.reduce((n, p) => n + p.value, 0),
    logs: [...new Set([...violations, ...checks].map((p) => p.attributes['nous.session.invariant.log']))],
    providers: [...new Set(checks.map((p) => p.attributes['gen_ai.provider.name']))],
    stderr: run.stderr,
  };
}
