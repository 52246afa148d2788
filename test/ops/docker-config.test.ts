// The docker/ folder: every file parses, references only files that exist,
// pins its images, keeps secrets out, and promtool accepts the rules and config.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireProgram } from '../support/tools';
import { PACKAGE_ROOT } from '../support/run-node';

const docker = join(PACKAGE_ROOT, 'docker');
const load = (file: string) => parse(readFileSync(join(docker, file), 'utf8')) as Record<string, any>;

interface Pipeline {
  receivers?: string[];
  processors?: string[];
  exporters?: string[];
}

/** The collector's config merge: maps merge deeply, lists are replaced. */
function merge(base: any, over: any): any {
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof over !== 'object' || over === null || Array.isArray(over))
    return over;
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in base ? merge(base[k], v) : v;
  return out;
}

function expectPipelinesResolve(config: any): void {
  for (const [name, pipeline] of Object.entries(config.service.pipelines as Record<string, Pipeline>)) {
    for (const kind of ['receivers', 'processors', 'exporters'] as const) {
      for (const component of pipeline[kind] ?? []) {
        expect(config[kind], `${name}.${kind}`).toHaveProperty([component]);
      }
    }
  }
}

describe('docker/compose.yaml', () => {
  const compose = load('compose.yaml');
  const services = compose.services as Record<string, { image: string; volumes?: string[]; command?: string | string[] }>;

  it('has the collector, the viewer, Jaeger, Prometheus, Alertmanager, Grafana and Redis, with pinned images', () => {
    expect(Object.keys(services).sort()).toEqual(['alertmanager', 'collector', 'grafana', 'jaeger', 'prometheus', 'redis', 'viewer']);
    for (const [name, service] of Object.entries(services)) {
      expect(service.image, name).toMatch(/:[\w.-]+$/);
      expect(service.image, name).not.toMatch(/:latest$/);
    }
    expect(services.collector!.image).toMatch(/opentelemetry-collector-contrib/);
  });

  it('mounts only files and folders that exist', () => {
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        expect(existsSync(resolve(docker, source)), source).toBe(true);
      }
    }
  });

  it('loads the Honeycomb overlay only when HONEYCOMB_API_KEY is set, and the mounted configs are the ones passed', () => {
    const command = String(services.collector!.command);
    expect(command).toContain('--config=/etc/otelcol/collector.yaml');
    expect(command).toContain('${HONEYCOMB_API_KEY:+--config=/etc/otelcol/collector.honeycomb.yaml}');
    const mounted = (services.collector!.volumes ?? []).map((v) => v.split(':')[1]);
    for (const config of command.match(/\/etc\/otelcol\/[\w.]+/g) ?? []) expect(mounted).toContain(config);
  });
});

describe('docker/collector.yaml', () => {
  it('receives OTLP on 4317 and 4318 and every pipeline names components it defines', () => {
    const config = load('collector.yaml');
    expect(config.receivers.otlp.protocols.grpc.endpoint).toMatch(/:4317$/);
    expect(config.receivers.otlp.protocols.http.endpoint).toMatch(/:4318$/);
    expectPipelinesResolve(config);
  });

  it('with the Honeycomb overlay merged, pipelines still resolve and the key only comes from the environment', () => {
    const merged = merge(load('collector.yaml'), load('collector.honeycomb.yaml'));
    expectPipelinesResolve(merged);
    expect(merged.service.pipelines.traces.exporters).toContain('otlp_grpc/honeycomb');
    expect(merged.exporters['otlp_grpc/honeycomb'].headers['x-honeycomb-team']).toBe('${env:HONEYCOMB_API_KEY}');
    expect(readFileSync(join(docker, 'collector.honeycomb.yaml'), 'utf8')).not.toMatch(/[a-zA-Z0-9]{22,}/);
  });
});

describe('docker/prometheus and docker/alertmanager', () => {
  it('Prometheus scrapes the collector, loads the alert rules and sends to Alertmanager', () => {
    const config = load('prometheus/prometheus.yml');
    for (const file of config.rule_files as string[])
      expect(existsSync(resolve(docker, 'prometheus', file.split(' ')[0]!)), file).toBe(true);
    expect(config.scrape_configs[0].static_configs[0].targets).toEqual(['collector:8889']);
    expect(config.alerting.alertmanagers[0].static_configs[0].targets).toEqual(['alertmanager:9093']);
  });

  it('Alertmanager routes to a receiver it defines', () => {
    const config = load('alertmanager/alertmanager.yml');
    const receivers = (config.receivers as Array<{ name: string }>).map((r) => r.name);
    expect(receivers).toContain(config.route.receiver);
    for (const route of config.route.routes ?? []) expect(receivers).toContain(route.receiver);
  });

  const amtool = requireProgram('amtool', 'amtool check-config');
  it.skipIf(!amtool)('amtool check-config passes', () => {
    const out = execFileSync('amtool', ['check-config', 'alertmanager/alertmanager.yml'], { cwd: docker, encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS/);
    expect(out).toMatch(/1 receivers/);
  });

  const promtool = requireProgram('promtool', 'promtool check and test of the rules');
  it.skipIf(!promtool)('promtool check rules, test rules and check config pass', () => {
    const run = (...args: string[]) => execFileSync('promtool', args, { cwd: docker, encoding: 'utf8' });
    expect(run('check', 'rules', 'prometheus/alerts.yml')).toMatch(/SUCCESS: 3 rules found/);
    expect(run('test', 'rules', 'prometheus/alerts.test.yml')).toMatch(/SUCCESS/);
    expect(run('check', 'config', 'prometheus/prometheus.yml')).toMatch(/is valid prometheus config file/);
  });

  const rules = load('prometheus/alerts.yml').groups[0].rules as Array<{ alert: string; expr: string; for?: string }>;

  it('every violation alert groups by the log as well as kind and agent, so bound and implicit never mix', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'NousSessionInvariantViolation',
      'NousSessionInvariantViolationRatioHigh',
      'NousSessionInvariantStoreErrors',
    ]);
    for (const { alert, expr } of rules.filter((r) => r.alert.includes('Violation'))) {
      for (const by of expr.match(/(?:by|on) \([^)]*\)/g)!) expect(by, alert).toContain('nous_session_invariant_log');
    }
  });

  it('the shared store alert fires on errors that last, by reason', () => {
    const store = rules.find((r) => r.alert === 'NousSessionInvariantStoreErrors')!;
    expect(store.expr).toMatch(/sum by \(nous_session_invariant_store_reason\) \(increase\(nous_session_invariant_store_errors_total\[/);
    expect(store.for).toBe('10m');
  });
});

describe('docker/grafana', () => {
  it('provisions the Prometheus datasource and a dashboard folder that compose mounts', () => {
    const datasource = load('grafana/provisioning/datasources/prometheus.yml').datasources[0];
    expect(datasource).toMatchObject({ type: 'prometheus', uid: 'prometheus', url: 'http://prometheus:9090' });
    const provider = load('grafana/provisioning/dashboards/dashboards.yml').providers[0];
    const mounts = (load('compose.yaml').services.grafana.volumes as string[]).map((v) => v.split(':'));
    expect(mounts.some(([source, target]) => target === provider.options.path && existsSync(resolve(docker, source!)))).toBe(true);
  });

  const dashboard = JSON.parse(readFileSync(join(docker, 'grafana/dashboards/nous-session-invariant.json'), 'utf8'));
  type Panel = {
    id: number;
    title: string;
    gridPos: { x: number; y: number; w: number; h: number };
    targets: Array<{ expr: string; datasource: { uid: string } }>;
  };
  const panels = dashboard.panels as Panel[];
  const exprs = panels.flatMap((p) => p.targets);

  it('the dashboard shows violations by kind, agent and log and the violation ratio, from metrics this package exports', () => {
    expect(exprs.every((t) => t.datasource.uid === 'prometheus')).toBe(true);
    expect(exprs[0]!.expr).toMatch(
      /sum by \(nous_session_invariant_kind, nous_session_invariant_log, gen_ai_agent_name\).*nous_session_invariant_violation_total/,
    );
    expect(exprs[1]!.expr).toMatch(
      /nous_session_invariant_violation_total.*\/ on \(gen_ai_agent_name, nous_session_invariant_log\).*nous_session_invariant_checks_total/,
    );
    for (const { expr } of exprs) {
      for (const metric of expr.match(/nous_session_invariant_\w+/g) ?? []) {
        expect([
          'nous_session_invariant_violation_total',
          'nous_session_invariant_checks_total',
          'nous_session_invariant_implicit_evictions_total',
          'nous_session_invariant_kind',
          'nous_session_invariant_log',
          'nous_session_invariant_eviction_reason',
          'nous_session_invariant_store_errors_total',
          'nous_session_invariant_store_reason',
        ]).toContain(metric);
      }
    }
  });

  it('the dashboard tells the bound log from the implicit one: a $log variable that every violation and checks query filters on', () => {
    const log = (dashboard.templating.list as Array<{ name: string; query: string; includeAll: boolean }>).find((v) => v.name === 'log');
    expect(log).toMatchObject({ query: 'bound,implicit', includeAll: true });
    const counted = exprs.filter((t) => /nous_session_invariant_(violation|checks)_total/.test(t.expr));
    expect(counted.length).toBeGreaterThanOrEqual(4);
    for (const { expr } of counted) {
      for (const use of expr.match(/nous_session_invariant_(?:violation|checks)_total(?:\{[^}]*\})?/g) ?? [])
        expect(use).toContain('nous_session_invariant_log=~"$log"');
    }
  });

  it('the dashboard has the by-log, eviction and store error panels, with unique ids and no overlapping panels', () => {
    const titles = panels.map((p) => p.title);
    expect(titles).toContain('Violations by log (bound vs implicit)');
    const evictions = panels.find((p) => p.title === 'Implicit conversations evicted per second, by reason');
    expect(evictions!.targets[0]!.expr).toMatch(
      /sum by \(nous_session_invariant_eviction_reason\) \(rate\(nous_session_invariant_implicit_evictions_total\[/,
    );
    const store = panels.find((p) => p.title === 'Shared store errors per second, by reason');
    expect(store!.targets[0]!.expr).toMatch(
      /sum by \(nous_session_invariant_store_reason\) \(rate\(nous_session_invariant_store_errors_total\[/,
    );
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const cells = new Set<string>();
    for (const { title, gridPos: g } of panels) {
      expect(g.x + g.w, title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), title).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });
});
