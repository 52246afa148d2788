// The Collector and Jaeger that stack/build.sh builds against the configs in
// docker/: each program's own `validate` accepts every config shipped (the
// Honeycomb overlay included) and refuses a broken one, the Collector holds
// exactly the components the configs use, and compose's images are the
// releases that were built. The loopback derivation is checked on its own.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DOCKER_DIR, imageTag, interpolate, readCompose } from '../../stack/compose';
import { toLoopback } from '../../stack/loopback';
import { missingPrograms, STACK_BIN } from '../../stack/native';
import { PACKAGE_ROOT } from '../support/run-node';
import { runsWith } from '../support/tools';

const built = runsWith('the built Collector and Jaeger against the configs', missingPrograms(['collector', 'jaeger']));

const otelcol = join(STACK_BIN, 'otelcol-nous');
const jaeger = join(STACK_BIN, 'jaeger');
const docker = (file: string) => join(DOCKER_DIR, file);
const scratch = mkdtempSync(join(tmpdir(), 'nous-stack-configs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a program; its exit status and everything it printed. */
function run(program: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number; output: string } {
  try {
    const output = execFileSync(program, args, { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, output };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, output: `${failed.stdout}${failed.stderr}` };
  }
}

/** A go.mod's required version of a module. */
function required(goMod: string, module: string): string {
  const match = new RegExp(`^\\s*${module.replace(/[.]/g, '\\.')} (v[\\w.-]+)`, 'm').exec(readFileSync(join(PACKAGE_ROOT, goMod), 'utf8'));
  if (!match) throw new Error(`${goMod} does not require ${module}`);
  return match[1]!;
}

describe.skipIf(!built)('the built Collector and Jaeger against the shipped configs', () => {
  const honeycomb = { HONEYCOMB_API_KEY: 'test-key', HONEYCOMB_METRICS_DATASET: 'test-metrics' };

  it('the Collector validates collector.yaml, alone and with the Honeycomb overlay', () => {
    expect(run(otelcol, ['validate', `--config=${docker('collector.yaml')}`])).toEqual({ status: 0, output: '' });
    const withOverlay = run(
      otelcol,
      ['validate', `--config=${docker('collector.yaml')}`, `--config=${docker('collector.honeycomb.yaml')}`],
      honeycomb,
    );
    expect(withOverlay).toEqual({ status: 0, output: '' });
  });

  it('Jaeger validates jaeger.yaml', () => {
    expect(run(jaeger, ['validate', `--config=${docker('jaeger.yaml')}`]).status).toBe(0);
  });

  /** `program validate` on a shipped config with one edit. */
  function validateEdited(program: string, file: string, from: string, to: string): { status: number; output: string } {
    const source = readFileSync(docker(file), 'utf8');
    expect(source).toContain(from);
    const edited = join(scratch, `edited-${file}`);
    writeFileSync(edited, source.replace(from, to));
    return run(program, ['validate', `--config=${edited}`]);
  }

  it('validate refuses a config naming a component the build lacks, and one whose pipeline names an undefined one', () => {
    const unknown = validateEdited(otelcol, 'collector.yaml', 'exporters: [prometheus]', 'exporters: [prometheus, debug]');
    expect(unknown.status).not.toBe(0);
    expect(unknown.output).toMatch(/debug/);
    const undefinedProcessor = validateEdited(jaeger, 'jaeger.yaml', 'processors: [batch]', 'processors: [batch, undefined_processor]');
    expect(undefinedProcessor.status).not.toBe(0);
    expect(undefinedProcessor.output).toMatch(/undefined_processor/);
  });

  it('the Collector holds exactly the components the shipped configs use', () => {
    const listed = parse(run(otelcol, ['components']).output) as Record<string, Array<{ name: string }> | undefined>;
    const configs = [
      parse(readFileSync(docker('collector.yaml'), 'utf8')),
      parse(readFileSync(docker('collector.honeycomb.yaml'), 'utf8')),
    ] as Array<Record<string, Record<string, unknown> | undefined>>;
    for (const kind of ['receivers', 'processors', 'exporters', 'connectors', 'extensions']) {
      const used = new Set(configs.flatMap((config) => Object.keys(config[kind] ?? {}).map((id) => id.split('/')[0]!)));
      expect(new Set((listed[kind] ?? []).map((c) => c.name)), kind).toEqual(used);
    }
  });
});

describe('docker/compose.yaml pins the releases stack/ builds', () => {
  const services = readCompose({});

  it('the Collector image is the contrib release of the built components, at the same core release', () => {
    const contrib = required(
      'stack/collector/go.mod',
      'github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter',
    );
    const core = required('stack/collector/go.mod', 'go.opentelemetry.io/collector/otelcol');
    const tag = imageTag(services.get('collector')!.image);
    expect(services.get('collector')!.image).toMatch(/^otel\/opentelemetry-collector-contrib:/);
    expect(`v${tag}`).toBe(contrib);
    expect(contrib.split('.').slice(0, 2)).toEqual(core.split('.').slice(0, 2));
  });

  it('the Jaeger image is the v2 release of the built module (v1.N.P is 2.(N-63).P)', () => {
    const [, minor, patch] = required('stack/jaeger/go.mod', 'github.com/jaegertracing/jaeger').slice(1).split('.').map(Number);
    expect(services.get('jaeger')!.image).toBe(`jaegertracing/jaeger:2.${minor! - 63}.${patch}`);
  });

  it('Prometheus is 3.x; no image is unpinned', () => {
    expect(imageTag(services.get('prometheus')!.image)).toMatch(/^v3\.\d+\.\d+$/);
    for (const service of services.values()) expect(imageTag(service.image), service.name).toMatch(/^v?\d+\.\d+\.\d+$/);
  });

  it("reads the Honeycomb overlay into the collector's command only when the key is set, as compose does", () => {
    expect(readCompose({}).get('collector')!.args).toEqual(['--config=/etc/otelcol/collector.yaml']);
    expect(readCompose({ HONEYCOMB_API_KEY: 'k' }).get('collector')!.args).toEqual([
      '--config=/etc/otelcol/collector.yaml',
      '--config=/etc/otelcol/collector.honeycomb.yaml',
    ]);
    expect(interpolate('${A:-x} ${B:+y} ${C}', { A: '', B: '', C: 'c' })).toBe('x  c');
  });
});

describe('stack/loopback: the compose addresses on loopback', () => {
  const services = new Set(['collector', 'jaeger', 'prometheus', 'alertmanager']);
  const portFor = (service: string, port: number) =>
    ({ collector: 10_000, jaeger: 20_000, prometheus: 30_000, alertmanager: 40_000 })[service]! + (port % 10_000);

  it("moves a service's listening addresses and its peers' to 127.0.0.1 at their ports, and nothing else", () => {
    const source = readFileSync(docker('collector.yaml'), 'utf8');
    const { text, changed } = toLoopback(source, 'collector', services, portFor);
    expect(changed).toBe(true);
    const derived = parse(text);
    expect(derived.receivers.otlp.protocols).toEqual({ grpc: { endpoint: '127.0.0.1:14317' }, http: { endpoint: '127.0.0.1:14318' } });
    expect(derived.exporters['otlp_grpc/jaeger'].endpoint).toBe('127.0.0.1:24317');
    expect(derived.exporters.prometheus.endpoint).toBe('127.0.0.1:18889');
    expect(derived.service.telemetry.metrics.readers[0].pull.exporter.prometheus).toEqual({ host: '127.0.0.1', port: 18888 });
    // The rest is the same document.
    const original = parse(source);
    expect({ ...derived, receivers: {}, exporters: {}, service: { ...derived.service, telemetry: {} } }).toEqual({
      ...original,
      receivers: {},
      exporters: {},
      service: { ...original.service, telemetry: {} },
    });
  });

  it('rewrites peers in URLs and lists, keeps outside hosts, and copies a file without addresses byte for byte', () => {
    const prometheus = parse(toLoopback(readFileSync(docker('prometheus/prometheus.yml'), 'utf8'), 'prometheus', services, portFor).text);
    expect(prometheus.alerting.alertmanagers[0].static_configs[0].targets).toEqual(['127.0.0.1:49093']);
    expect(prometheus.scrape_configs.map((c: { static_configs: Array<{ targets: string[] }> }) => c.static_configs[0]!.targets)).toEqual([
      ['127.0.0.1:18889'],
      ['127.0.0.1:18888'],
    ]);
    expect(toLoopback('url: http://prometheus:9090/api\nhoneycomb: api.honeycomb.io:443\n', 'grafana', services, portFor).text).toBe(
      'url: http://127.0.0.1:39090/api\nhoneycomb: api.honeycomb.io:443\n',
    );
    const rules = readFileSync(docker('prometheus/alerts.yml'), 'utf8');
    expect(toLoopback(rules, 'prometheus', services, portFor)).toEqual({ text: rules, changed: false });
  });
});
