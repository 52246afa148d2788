// End to end with a real Prometheus: the demo's buggy agent exports its
// counters with OTEL_METRICS_EXPORTER=prometheus on a loopback port,
// Prometheus scrapes it with docker/prometheus/alerts.yml loaded, and the
// counter and the firing alert are read back through Prometheus's HTTP API.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, appEnvironment } from '../support/run-node';
import { until } from '../support/services';
import { freePort, requireProgram } from '../support/tools';

const prometheusInstalled = requireProgram('prometheus', 'a real Prometheus scraping the buggy agent');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function start(command: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { cwd: PACKAGE_ROOT, env: { ...appEnvironment(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  return { child, output: () => output };
}

describe.skipIf(!prometheusInstalled)('a real Prometheus scraping the buggy agent', () => {
  it('sees the counter with its labels and fires the alert', { timeout: 120_000 }, async () => {
    const agentPort = await freePort();
    const agent = start('node', ['--require', 'nous-session-invariant/register', '--import', 'tsx', 'examples/agent-loop.ts'], {
      DEMO_BUILDERS: 'buggy',
      DEMO_KEEP_ALIVE: '1',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(agentPort),
    });
    await until('the agent to finish its loop', async () => (agent.output().includes('buggy builder: answer') ? true : undefined), 30_000);

    const dir = mkdtempSync(join(tmpdir(), 'nous-prometheus-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${join(PACKAGE_ROOT, 'docker/prometheus/alerts.yml')}`,
        'scrape_configs:',
        '  - job_name: agent',
        '    static_configs:',
        `      - targets: ["127.0.0.1:${agentPort}"]`,
        '',
      ].join('\n'),
    );
    const prometheusPort = await freePort();
    const prometheus = start('prometheus', [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${prometheusPort}`,
    ]);
    const api = `http://127.0.0.1:${prometheusPort}/api/v1`;

    type Series = { metric: Record<string, string>; value: [number, string] };
    const series = await until(
      'the counter in Prometheus',
      async () => {
        const response = await fetch(`${api}/query?query=${encodeURIComponent('nous_session_invariant_violation_total')}`);
        const body = (await response.json()) as { data: { result: Series[] } };
        return body.data.result.length > 0 ? body.data.result : undefined;
      },
      45_000,
    );
    expect(series).toHaveLength(1);
    expect(series[0]!.metric).toMatchObject({
      __name__: 'nous_session_invariant_violation_total',
      nous_session_invariant_kind: 'missing_message',
      nous_session_invariant_mode: 'warn',
      gen_ai_agent_name: 'weather-agent',
      gen_ai_provider_name: 'openai',
    });
    expect(Number(series[0]!.value[1])).toBeGreaterThanOrEqual(1);

    type Alert = { labels: Record<string, string>; state: string };
    const alert = await until(
      'the alert to fire',
      async () => {
        const response = await fetch(`${api}/alerts`);
        const body = (await response.json()) as { data: { alerts: Alert[] } };
        return body.data.alerts.find((a) => a.labels.alertname === 'NousSessionInvariantViolation' && a.state === 'firing');
      },
      45_000,
    );
    expect(alert.labels).toMatchObject({
      severity: 'warning',
      nous_session_invariant_kind: 'missing_message',
      gen_ai_agent_name: 'weather-agent',
    });

    agent.child.kill('SIGTERM');
    prometheus.child.kill('SIGTERM');
  });
});
