// End to end on the real stack of docker/compose.yaml, run natively on
// loopback (stack/native.ts): the Collector and Jaeger v2 built from their Go
// modules by stack/build.sh, Prometheus and Alertmanager from Debian, each
// with the repository's config files. The demo exports over OTLP
// (http/protobuf, the SDK's default) to the Collector; the violation is then
// read back from Jaeger's query API, the counter from Prometheus (scraping the
// Collector), the alert from Alertmanager's API, and the violations from the
// viewer the Collector also exports to.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingPrograms, startStack, type NativeStack } from '../../stack/native';
import { runNode } from '../support/run-node';
import { until } from '../support/services';
import { runsWith } from '../support/tools';

const runs = runsWith('the native stack end to end', missingPrograms());

const SERVICE = 'nous-session-invariant-e2e';
// What the demo's agents send the model: none of it may reach the backend.
const PROMPT_TEXT = ['umbrella', 'Lisbon', 'weather assistant', 'rain', 'Forecast'];

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

interface JaegerKeyValue {
  key: string;
  value: unknown;
}
interface JaegerSpan {
  operationName: string;
  tags: JaegerKeyValue[];
  logs: Array<{ fields: JaegerKeyValue[] }>;
}
interface JaegerTrace {
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: JaegerKeyValue[] }>;
}

const fields = (list: JaegerKeyValue[]) => Object.fromEntries(list.map(({ key, value }) => [key, value]));

describe.skipIf(!runs)('the observability stack, natively: Collector, Jaeger v2, Prometheus, Alertmanager', () => {
  let stack: NativeStack;
  let traces: JaegerTrace[];

  beforeAll(async () => {
    stack = await startStack({ ports: 'free' });
    // `npm run demo` without its build step (pretest has built the package).
    const demo = await runNode(
      ['--require', 'nous-session-invariant/register', '--import', 'tsx', 'examples/agent-loop.ts'],
      { OTEL_SERVICE_NAME: SERVICE, OTEL_EXPORTER_OTLP_ENDPOINT: stack.url('collector', 4318) },
      { timeoutMs: 60_000 },
    );
    if (demo.code !== 0) throw new Error(`the demo exited ${demo.code ?? demo.signal}:\n${demo.stderr}`);
    // The demo's four violating requests (two bound, one per unmodified run that trims) reach Jaeger as three traces or more.
    traces = await until(
      'the traces in Jaeger',
      async () => {
        const body = await getJson<{ data: JaegerTrace[] }>(`${stack.url('jaeger', 16686)}/api/traces?service=${SERVICE}&limit=100`);
        return body.data.length >= 3 ? body.data : undefined;
      },
      30_000,
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('Jaeger has the violation event on the model-request span, with kind, index, lengths and roles', () => {
    const events = traces.flatMap((trace) =>
      trace.spans.flatMap((span) =>
        span.logs
          .map((log) => ({ span, event: fields(log.fields) }))
          .filter(({ event }) => event.event === 'nous.session.invariant.violation'),
      ),
    );
    expect(events.length).toBeGreaterThanOrEqual(3);
    for (const { span } of events) {
      // The package's own span, made because the request had none: INTERNAL, so it is not counted as a model call.
      expect(span.operationName).toBe('nous.session.invariant check');
      expect(fields(span.tags)).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'local-demo' });
      expect(fields(span.tags)).not.toHaveProperty('gen_ai.operation.name');
      expect(fields(span.tags)['span.kind']).not.toBe('client');
    }
    // The buggy builder's first request: the tool result dropped from a log of 4.
    // Exactly these, plus the agent and the conversation the event rows group by.
    expect(events.map((e) => e.event)).toContainEqual({
      'gen_ai.agent.name': 'weather-agent',
      'gen_ai.conversation.id': expect.any(String),
      event: 'nous.session.invariant.violation',
      'nous.session.invariant.kind': 'missing_message',
      'nous.session.invariant.mode': 'warn',
      'nous.session.invariant.log': 'bound',
      'nous.session.invariant.index': 3,
      'nous.session.invariant.request_length': 3,
      'nous.session.invariant.log_length': 4,
      'nous.session.invariant.extra.count': 0,
      'nous.session.invariant.extra.roles': '[]',
      'nous.session.invariant.missing.count': 1,
      'nous.session.invariant.missing.roles': '["tool"]',
      'nous.session.invariant.missing.tool_call_ids': expect.stringMatching(/^\["call_\d+"\]$/),
      'nous.session.invariant.missing.tool_names': '["get_weather"]',
      'nous.session.invariant.matching.before_roles': '["user","assistant"]',
      'nous.session.invariant.matching.request_after_roles': '[]',
      'nous.session.invariant.matching.log_after_roles': '[]',
    });
    // The unmodified agent that cuts an old tool result short, checked against its implicit log.
    expect(events.map((e) => e.event)).toContainEqual(
      expect.objectContaining({ 'nous.session.invariant.log': 'implicit', 'nous.session.invariant.kind': 'missing_message' }),
    );
  });

  it('Jaeger finds the traces by an event attribute, as docs/operating.md tells users to search', async () => {
    const tags = encodeURIComponent(JSON.stringify({ 'nous.session.invariant.kind': 'missing_message' }));
    const found = await getJson<{ data: JaegerTrace[] }>(
      `${stack.url('jaeger', 16686)}/api/traces?service=${SERVICE}&tags=${tags}&limit=100`,
    );
    expect(found.data.length).toBe(traces.length);
  });

  it('no prompt text, and not the command line, is anywhere in the stored traces', () => {
    const stored = JSON.stringify(traces);
    for (const text of PROMPT_TEXT) expect(stored).not.toContain(text);
    expect(stored).not.toContain('process.command_args');
    expect(stored).toContain('nous.session.invariant.kind'); // the check above reads the real export
  });

  it('the viewer, fed by the Collector, holds the same violations, bound and implicit, with no prompt text', async () => {
    /** What the viewer's page is sent on connecting: every violation it holds. */
    const held = async (): Promise<Array<Record<string, unknown>>> => {
      const response = await fetch(`${stack.url('viewer', 4320)}/api/stream`, { signal: AbortSignal.timeout(5_000) });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('event: ready')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      return [...text.matchAll(/^event: violation\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
    };
    // The span events and the log records reach the viewer through two pipelines, each batched on its own clock, so
    // a violation can be held before its log record (and its explanation) has arrived: wait for both halves.
    const complete = async (): Promise<Array<Record<string, unknown>> | undefined> => {
      const now = await held();
      return now.length >= 3 && now.every((v) => typeof v.explanation === 'string') ? now : undefined;
    };
    const violations = await until('the violations in the viewer, each with its log record', complete, 30_000);
    expect(violations.every((v) => v.service === SERVICE)).toBe(true);
    expect(new Set(violations.map((v) => v.log))).toEqual(new Set(['bound', 'implicit']));
    expect(violations).toContainEqual(
      expect.objectContaining({
        kind: 'missing_message',
        log: 'bound',
        spanName: 'nous.session.invariant check',
        provider: 'openai',
        agent: 'weather-agent',
      }),
    );
    // Each one completed by its gen_ai.evaluation.result log record, which came through the Collector's logs pipeline.
    for (const v of violations) {
      expect(v.explanation).toEqual(expect.stringMatching(/^[a-z_]+: /));
      expect(v.conversation).toEqual(expect.any(String));
    }
    const stored = JSON.stringify(violations);
    for (const text of PROMPT_TEXT) expect(stored).not.toContain(text);
  });

  it('Prometheus, scraping the Collector, has the counter with its kind, agent and log labels', async () => {
    type Series = { metric: Record<string, string>; value: [number, string] };
    const query = encodeURIComponent(`nous_session_invariant_violation_total{exported_job="${SERVICE}"}`);
    const series = await until(
      'the counter in Prometheus',
      async () => {
        const body = await getJson<{ data: { result: Series[] } }>(`${stack.url('prometheus', 9090)}/api/v1/query?query=${query}`);
        return body.data.result.length >= 2 ? body.data.result : undefined;
      },
      60_000,
    );
    const bound = series.find((s) => s.metric.nous_session_invariant_log === 'bound');
    expect(bound?.metric).toMatchObject({
      job: 'otel-collector',
      nous_session_invariant_kind: 'missing_message',
      gen_ai_agent_name: 'weather-agent',
      gen_ai_provider_name: 'openai',
    });
    expect(Number(bound!.value[1])).toBe(2);
    const implicit = series.find((s) => s.metric.nous_session_invariant_log === 'implicit');
    expect(implicit?.metric).toMatchObject({ nous_session_invariant_kind: 'missing_message' });
    expect(implicit?.metric).not.toHaveProperty('gen_ai_agent_name');
  }, 70_000);

  it('the alert reaches Alertmanager, which lists it as active', async () => {
    type Alert = { labels: Record<string, string>; status: { state: string } };
    const alerts = await until(
      'the alert in Alertmanager',
      async () => {
        const body = await getJson<Alert[]>(`${stack.url('alertmanager', 9093)}/api/v2/alerts?active=true`);
        return body.some((a) => a.labels.nous_session_invariant_log === 'bound') ? body : undefined;
      },
      90_000,
    );
    expect(alerts.map((a) => ({ ...a.labels, state: a.status.state }))).toContainEqual({
      alertname: 'NousSessionInvariantViolation',
      severity: 'warning',
      nous_session_invariant_kind: 'missing_message',
      nous_session_invariant_log: 'bound',
      gen_ai_agent_name: 'weather-agent',
      state: 'active',
    });
  }, 100_000);
});
