// The viewer's OTLP/HTTP receiver, fed by the real OpenTelemetry exporters
// (protobuf and JSON) and by hostile payloads: what is kept, what is merged,
// what is refused and that a refused payload changes nothing.

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, trace, type SpanContext } from '@opentelemetry/api';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { logsFromJson, tracesFromJson } from '../../src/viewer/otlp-json';
import { decodeLogs, decodeTraces } from '../../src/viewer/otlp-proto';
import { DecodeError } from '../../src/viewer/protobuf';
import { ViolationStore } from '../../src/viewer/store';
import { startViewer, type RunningViewer } from '../../src/viewer/viewer';
import { violationsFromSpans } from '../../src/viewer/violation';

const viewers: RunningViewer[] = [];
afterEach(async () => {
  await Promise.all(viewers.splice(0).map((v) => v.close()));
});

async function viewer(options: { maxBodyBytes?: number; maxViolations?: number } = {}): Promise<RunningViewer> {
  const v = await startViewer({ host: '127.0.0.1', port: 0, otlpPort: 0, ...options });
  viewers.push(v);
  return v;
}

type Encoding = 'protobuf' | 'json';

/** Sends one span like the package records, with a violation event and an unrelated one, through a real exporter. */
async function sendSpan(endpoint: string, encoding: Encoding, service: string): Promise<SpanContext> {
  const url = `${endpoint}/v1/traces`;
  const exporter = encoding === 'protobuf' ? new ProtoTraceExporter({ url }) : new JsonTraceExporter({ url });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const span = provider.getTracer('test').startSpan('chat gpt-test', {
    attributes: { 'gen_ai.request.model': 'gpt-test', 'gen_ai.provider.name': 'openai' },
  });
  span.addEvent('some.other.event', { 'nous.session.invariant.kind': 'order' });
  span.addEvent('nous.session.invariant.violation', {
    'nous.session.invariant.kind': 'missing_message',
    'nous.session.invariant.mode': 'warn',
    'nous.session.invariant.log': 'bound',
    'nous.session.invariant.index': 3,
    'nous.session.invariant.request_length': 5,
    'nous.session.invariant.log_length': 7,
    'nous.session.invariant.extra.count': 0,
    'nous.session.invariant.extra.roles': [],
    'nous.session.invariant.missing.count': 2,
    'nous.session.invariant.missing.roles': ['user', 'assistant'],
    'nous.session.invariant.missing.previews': ['<img src=x onerror=alert(1)>', ''],
  });
  span.end();
  await provider.shutdown();
  return span.spanContext();
}

/** Sends the evaluation log record of the same violation, in the span's context, and an unrelated record. */
async function sendLog(endpoint: string, encoding: Encoding, service: string, spanContext: SpanContext): Promise<void> {
  const url = `${endpoint}/v1/logs`;
  const exporter = encoding === 'protobuf' ? new ProtoLogExporter({ url }) : new JsonLogExporter({ url });
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('test');
  const context = trace.setSpanContext(ROOT_CONTEXT, spanContext);
  logger.emit({ eventName: 'app.started', body: 'hello', context });
  logger.emit({
    eventName: 'gen_ai.evaluation.result',
    context,
    body: 'missing_message at index 3',
    attributes: {
      'gen_ai.evaluation.name': 'nous.session.invariant',
      'gen_ai.evaluation.score.label': 'missing_message',
      'gen_ai.evaluation.explanation': 'missing_message at index 3 (request 5 messages, log 7)',
      'gen_ai.agent.name': 'support-agent',
      'gen_ai.conversation.id': 'conv-42',
      'nous.session.invariant.kind': 'missing_message',
      'nous.session.invariant.log': 'bound',
      'nous.session.invariant.index': 3,
      'nous.session.invariant.request_length': 5,
      'nous.session.invariant.log_length': 7,
    },
  });
  await provider.shutdown();
}

describe.each<Encoding>(['protobuf', 'json'])('the real OTLP exporters over http/%s', (encoding) => {
  it('a violation span event is kept with its span, service, provider and model; other events are ignored', async () => {
    const v = await viewer();
    const sc = await sendSpan(v.otlpUrl, encoding, 'svc-a');
    const [kept, ...others] = v.store.list();
    expect(others).toEqual([]);
    expect(kept).toMatchObject({
      traceId: sc.traceId,
      spanId: sc.spanId,
      service: 'svc-a',
      spanName: 'chat gpt-test',
      kind: 'missing_message',
      log: 'bound',
      mode: 'warn',
      provider: 'openai',
      model: 'gpt-test',
    });
    expect(kept!.attributes['nous.session.invariant.missing.roles']).toEqual(['user', 'assistant']);
    expect(kept!.attributes['nous.session.invariant.missing.previews']).toEqual(['<img src=x onerror=alert(1)>', '']);
    expect(kept!.layout?.rows.filter((r) => r.log?.mark === 'missing').map((r) => [r.log!.position, r.log!.role])).toEqual([
      [3, 'user'],
      [4, 'assistant'],
    ]);
  });

  it("the evaluation log record merges into its span event's violation, adding agent, conversation and explanation", async () => {
    const v = await viewer();
    const sc = await sendSpan(v.otlpUrl, encoding, 'svc-b');
    await sendLog(v.otlpUrl, encoding, 'svc-b', sc);
    expect(v.store.size).toBe(1);
    expect(v.store.list()[0]).toMatchObject({
      traceId: sc.traceId,
      agent: 'support-agent',
      conversation: 'conv-42',
      explanation: 'missing_message at index 3 (request 5 messages, log 7)',
      model: 'gpt-test',
    });
  });

  it('a log record alone (its span exported elsewhere) is a violation of its own', async () => {
    const v = await viewer();
    await sendLog(v.otlpUrl, encoding, 'svc-c', { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: 1 });
    expect(v.store.list()).toMatchObject([{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), kind: 'missing_message', service: 'svc-c' }]);
  });
});

/** A server that keeps the raw bodies posted to it, to decode them directly. */
async function capture(): Promise<{ url: string; bodies: Buffer[]; server: Server }> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res
        .writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' })
        .end(req.headers['content-type'] === 'application/json' ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

describe('the protobuf decoder', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('reads every AnyValue the logs exporter writes (nested maps, arrays, bytes, negative ints, doubles) as JSON does', async () => {
    const attributes = {
      str: 'text ✓',
      neg: -5,
      big: 2 ** 40,
      dbl: 1.5,
      yes: true,
      bytes: new Uint8Array([0, 255, 16]),
      list: ['a', 2, false],
      nested: { inner: { deeper: ['x', 1] }, n: 7 },
    };
    const decoded: Record<Encoding, ReturnType<typeof decodeLogs>> = { protobuf: [], json: [] };
    for (const encoding of ['protobuf', 'json'] as const) {
      const sink = await capture();
      servers.push(sink.server);
      const url = `${sink.url}/v1/logs`;
      const exporter = encoding === 'protobuf' ? new ProtoLogExporter({ url }) : new JsonLogExporter({ url });
      const provider = new LoggerProvider({
        resource: resourceFromAttributes({ 'service.name': 'decoder' }),
        processors: [new SimpleLogRecordProcessor({ exporter })],
      });
      provider.getLogger('t').emit({ eventName: 'e', attributes, body: { map: [1, 'two'] }, timestamp: 1_700_000_000_123 });
      await provider.shutdown();
      const [body] = sink.bodies;
      decoded[encoding] = encoding === 'protobuf' ? decodeLogs(body!) : logsFromJson(JSON.parse(body!.toString('utf8')));
    }
    expect(decoded.protobuf).toEqual(decoded.json);
    expect(decoded.protobuf).toMatchObject([
      {
        service: 'decoder',
        eventName: 'e',
        timeMs: 1_700_000_000_123,
        body: { map: [1, 'two'] },
        attributes: { ...attributes, bytes: '00ff10' },
      },
    ]);
  });

  it('reads spans and events as the JSON mapping does', async () => {
    const decoded: Record<Encoding, ReturnType<typeof decodeTraces>> = { protobuf: [], json: [] };
    for (const encoding of ['protobuf', 'json'] as const) {
      const sink = await capture();
      servers.push(sink.server);
      await sendSpan(sink.url, encoding, 'decoder');
      const [body] = sink.bodies;
      decoded[encoding] = encoding === 'protobuf' ? decodeTraces(body!) : tracesFromJson(JSON.parse(body!.toString('utf8')));
    }
    // Ids differ between the two runs; everything else is the same.
    const strip = (spans: ReturnType<typeof decodeTraces>) =>
      spans.map((s) => ({ ...s, traceId: '', spanId: '', events: s.events.map((e) => ({ ...e, timeMs: 0 })) }));
    expect(strip(decoded.protobuf)).toEqual(strip(decoded.json));
    expect(decoded.protobuf[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(violationsFromSpans(decoded.protobuf)).toHaveLength(1);
  });

  it('refuses truncated input, unknown wire types and hostile nesting with DecodeError', () => {
    const field = (n: number, wire: number) => (n << 3) | wire;
    // resource_spans, length 10, but only 2 bytes follow.
    expect(() => decodeTraces(Uint8Array.from([field(1, 2), 10, 1, 2]))).toThrow(DecodeError);
    expect(() => decodeTraces(Uint8Array.from([field(1, 3)]))).toThrow(DecodeError);
    expect(() => decodeTraces(Uint8Array.from([0x80]))).toThrow(DecodeError);
    expect(() => decodeTraces(Uint8Array.from(Array(11).fill(0xff)))).toThrow(DecodeError);
    // A log record whose body is an array nested 100 deep.
    let value = Uint8Array.from([field(1, 2), 1, 0x78]); // AnyValue{string_value:"x"}
    for (let i = 0; i < 100; i++) {
      const array = Uint8Array.from([field(1, 2), ...varint(value.length), ...value]); // ArrayValue{values:[value]}
      value = Uint8Array.from([field(5, 2), ...varint(array.length), ...array]);
    }
    const record = Uint8Array.from([field(5, 2), ...varint(value.length), ...value]);
    const scope = Uint8Array.from([field(2, 2), ...varint(record.length), ...record]);
    const resource = Uint8Array.from([field(2, 2), ...varint(scope.length), ...scope]);
    expect(() => decodeLogs(Uint8Array.from([field(1, 2), ...varint(resource.length), ...resource]))).toThrow(/nested too deep/);
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** Posts raw bytes; resolves with the status. */
function post(url: string, body: Buffer, headers: Record<string, string>, chunked = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    if (chunked) {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const PROTO_TYPE = { 'content-type': 'application/x-protobuf' };

/** A valid JSON export with one violation, to check a refused payload around it changes nothing. */
function jsonExport(kind = 'extra_message', padding = ''): Buffer {
  return Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: padding,
                  events: [
                    {
                      timeUnixNano: '1700000000000000000',
                      name: 'nous.session.invariant.violation',
                      attributes: [{ key: 'nous.session.invariant.kind', value: { stringValue: kind } }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    }),
  );
}

describe('the OTLP/HTTP endpoint', () => {
  it('answers 200 to metrics and ignores them, 404 elsewhere, 405 to GET, 415 to other content types', async () => {
    const v = await viewer();
    expect(await post(`${v.otlpUrl}/v1/metrics`, Buffer.from('{"resourceMetrics":[]}'), JSON_TYPE)).toBe(200);
    expect(await post(`${v.otlpUrl}/v1/metrics`, Buffer.from([1, 2, 3]), PROTO_TYPE)).toBe(200);
    expect(await post(`${v.otlpUrl}/v1/nope`, jsonExport(), JSON_TYPE)).toBe(404);
    expect(await post(`${v.otlpUrl}/v1/traces`, jsonExport(), { 'content-type': 'text/plain' })).toBe(415);
    expect(await new Promise((r) => request(`${v.otlpUrl}/v1/traces`, (res) => r(res.statusCode)).end())).toBe(405);
    expect(v.store.size).toBe(0);
    expect(await post(`${v.otlpUrl}/v1/traces`, jsonExport(), JSON_TYPE)).toBe(200);
    expect(v.store.list()).toMatchObject([{ kind: 'extra_message', service: 'raw', timeMs: 1_700_000_000_000 }]);
  });

  it('malformed payloads get 400 and change nothing', async () => {
    const v = await viewer();
    const valid = jsonExport();
    expect(await post(`${v.otlpUrl}/v1/traces`, valid.subarray(0, valid.length - 3), JSON_TYPE)).toBe(400);
    expect(await post(`${v.otlpUrl}/v1/traces`, Buffer.from('{"resourceSpans":{}}'), JSON_TYPE)).toBe(400);
    expect(await post(`${v.otlpUrl}/v1/traces`, Buffer.from('[1]'), JSON_TYPE)).toBe(400);
    expect(
      await post(`${v.otlpUrl}/v1/logs`, Buffer.from('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"zz"}]}]}]}'), JSON_TYPE),
    ).toBe(400);
    expect(await post(`${v.otlpUrl}/v1/traces`, Buffer.from([0x0a, 0x10, 0x01]), PROTO_TYPE)).toBe(400);
    expect(await post(`${v.otlpUrl}/v1/logs`, Buffer.from([0x0f]), PROTO_TYPE)).toBe(400);
    expect(await post(`${v.otlpUrl}/v1/traces`, Buffer.from('not gzip'), { ...JSON_TYPE, 'content-encoding': 'gzip' })).toBe(400);
    expect(v.store.size).toBe(0);
  });

  it('oversized payloads get 413, declared, chunked or gzipped, and change nothing; gzip within the limit is read', async () => {
    const v = await viewer({ maxBodyBytes: 64 * 1024 });
    const big = jsonExport('order', 'x'.repeat(100 * 1024));
    expect(await post(`${v.otlpUrl}/v1/traces`, big, JSON_TYPE)).toBe(413);
    expect(await post(`${v.otlpUrl}/v1/traces`, big, JSON_TYPE, true)).toBe(413);
    expect(await post(`${v.otlpUrl}/v1/traces`, gzipSync(big), { ...JSON_TYPE, 'content-encoding': 'gzip' })).toBe(413);
    expect(v.store.size).toBe(0);
    expect(await post(`${v.otlpUrl}/v1/traces`, gzipSync(jsonExport('order')), { ...JSON_TYPE, 'content-encoding': 'gzip' })).toBe(200);
    expect(v.store.list()).toMatchObject([{ kind: 'order' }]);
  });
});

describe('the store', () => {
  it('keeps the last N violations only, oldest dropped first', () => {
    const store = new ViolationStore(3);
    const make = (n: number) => ({
      timeMs: n,
      traceId: `t${n}`,
      spanId: 's',
      service: undefined,
      spanName: undefined,
      kind: 'order',
      mode: undefined,
      log: 'implicit',
      agent: undefined,
      conversation: undefined,
      provider: undefined,
      model: undefined,
      explanation: undefined,
      attributes: {},
    });
    for (let n = 0; n < 5; n++) store.add([make(n)]);
    expect(store.list().map((v) => v.traceId)).toEqual(['t2', 't3', 't4']);
    expect(store.list().map((v) => v.id)).toEqual([3, 4, 5]);
  });
});
