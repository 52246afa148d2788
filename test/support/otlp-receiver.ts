// A loopback OTLP/HTTP (JSON) receiver: keeps every trace, metric and log export it is sent.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedEvent {
  span: string;
  name: string;
  attributes: Record<string, unknown>;
  /** The span's kind (OTLP numbering: 1 INTERNAL, 3 CLIENT), trace and span ids (hex). */
  kind: number;
  traceId: string;
  spanId: string;
  spanAttributes: Record<string, unknown>;
}

export interface ReceivedLogRecord {
  eventName: string | undefined;
  severityNumber: number | undefined;
  attributes: Record<string, unknown>;
  traceId: string | undefined;
  spanId: string | undefined;
  scope: string | undefined;
}

export interface ReceivedPoint {
  metric: string;
  value: number;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  endpoint: string;
  /** Every request body, raw, to search for leaked text. */
  raw: string[];
  events(): ReceivedEvent[];
  points(metric: string): ReceivedPoint[];
  logRecords(): ReceivedLogRecord[];
  resourceAttributes(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

function value(v: AnyValue): unknown {
  if (v.arrayValue) return v.arrayValue.values.map(value);
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.doubleValue ?? v.boolValue;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const raw: string[] = [];
  const traces: any[] = [];
  const metrics: any[] = [];
  const logs: any[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      raw.push(body);
      const parsed = JSON.parse(body) as unknown;
      if (req.url === '/v1/traces') traces.push(parsed);
      else if (req.url === '/v1/metrics') metrics.push(parsed);
      else if (req.url === '/v1/logs') logs.push(parsed);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    raw,
    events: () =>
      traces.flatMap((t) =>
        t.resourceSpans.flatMap((rs: any) =>
          rs.scopeSpans.flatMap((ss: any) =>
            ss.spans.flatMap((s: any) =>
              (s.events ?? []).map((e: any) => ({
                span: s.name,
                name: e.name,
                attributes: attributes(e.attributes),
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                spanAttributes: attributes(s.attributes),
              })),
            ),
          ),
        ),
      ),
    points: (metric) =>
      metrics.flatMap((m) =>
        m.resourceMetrics.flatMap((rm: any) =>
          rm.scopeMetrics.flatMap((sm: any) =>
            sm.metrics
              .filter((x: any) => x.name === metric)
              .flatMap((x: any) =>
                (x.sum?.dataPoints ?? []).map((p: any) => ({
                  metric,
                  value: Number(p.asInt ?? p.asDouble),
                  attributes: attributes(p.attributes),
                })),
              ),
          ),
        ),
      ),
    logRecords: () =>
      logs.flatMap((l) =>
        l.resourceLogs.flatMap((rl: any) =>
          rl.scopeLogs.flatMap((sl: any) =>
            (sl.logRecords ?? []).map((r: any) => ({
              eventName: r.eventName,
              severityNumber: r.severityNumber,
              attributes: attributes(r.attributes),
              traceId: r.traceId || undefined,
              spanId: r.spanId || undefined,
              scope: sl.scope?.name,
            })),
          ),
        ),
      ),
    resourceAttributes: () =>
      [...traces, ...metrics].flatMap((t) => (t.resourceSpans ?? t.resourceMetrics).map((r: any) => attributes(r.resource?.attributes))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
