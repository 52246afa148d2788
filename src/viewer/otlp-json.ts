// OTLP/HTTP JSON payloads decoded into the same model as protobuf ones. The
// JSON mapping writes ids as hex, 64-bit integers as strings or numbers, and
// accepts both camelCase and snake_case field names.

import { DecodeError } from './protobuf';
import {
  MAX_VALUE_DEPTH,
  setAttribute,
  serviceOf,
  type OtlpAttributes,
  type OtlpLogRecord,
  type OtlpSpan,
  type OtlpValue,
} from './otlp-model';

type Json = Record<string, unknown>;

/** A parsed ExportTraceServiceRequest → spans. Throws DecodeError on a payload of the wrong shape. */
export function tracesFromJson(payload: unknown): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const rs of list(object(payload, 'request'), 'resourceSpans')) {
    const service = serviceOf(resourceAttributes(rs));
    for (const ss of list(rs, 'scopeSpans')) {
      for (const s of list(ss, 'spans')) {
        spans.push({
          service,
          traceId: id(s, 'traceId'),
          spanId: id(s, 'spanId'),
          name: text(s, 'name'),
          attributes: attributes(s, 0),
          events: list(s, 'events').map((e) => ({
            timeMs: millis(e, 'timeUnixNano'),
            name: text(e, 'name'),
            attributes: attributes(e, 0),
          })),
        });
      }
    }
  }
  return spans;
}

/** A parsed ExportLogsServiceRequest → log records. */
export function logsFromJson(payload: unknown): OtlpLogRecord[] {
  const records: OtlpLogRecord[] = [];
  for (const rl of list(object(payload, 'request'), 'resourceLogs')) {
    const service = serviceOf(resourceAttributes(rl));
    for (const sl of list(rl, 'scopeLogs')) {
      for (const r of list(sl, 'logRecords')) {
        const eventName = field(r, 'eventName');
        const body = field(r, 'body');
        records.push({
          service,
          timeMs: millis(r, 'timeUnixNano') || millis(r, 'observedTimeUnixNano'),
          eventName: typeof eventName === 'string' && eventName !== '' ? eventName : undefined,
          traceId: id(r, 'traceId'),
          spanId: id(r, 'spanId'),
          attributes: attributes(r, 0),
          body: body === undefined ? null : anyValue(body, 0),
        });
      }
    }
  }
  return records;
}

/** The camelCase field, else its snake_case spelling. */
function field(o: Json, name: string): unknown {
  return name in o ? o[name] : o[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DecodeError(`${what} is not an object`);
  return value as Json;
}

function list(o: Json, name: string): Json[] {
  const value = field(o, name);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new DecodeError(`${name} is not an array`);
  return value.map((v) => object(v, name));
}

function text(o: Json, name: string): string {
  const value = field(o, name);
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new DecodeError(`${name} is not a string`);
  return value;
}

/** Trace and span ids: hex in OTLP JSON; lower-cased so both encodings key alike. */
function id(o: Json, name: string): string {
  const value = text(o, name);
  if (!/^[0-9a-fA-F]*$/.test(value)) throw new DecodeError(`${name} is not hex`);
  return value.toLowerCase();
}

function millis(o: Json, name: string): number {
  const value = field(o, name);
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.floor(value / 1e6);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return Number(BigInt(value) / 1_000_000n);
  throw new DecodeError(`${name} is not a time`);
}

function resourceAttributes(o: Json): OtlpAttributes {
  const resource = field(o, 'resource');
  return resource === undefined || resource === null ? {} : attributes(object(resource, 'resource'), 0);
}

function attributes(o: Json, depth: number): OtlpAttributes {
  return keyValues(list(o, 'attributes'), depth);
}

function keyValues(entries: Json[], depth: number): OtlpAttributes {
  const out: OtlpAttributes = {};
  for (const kv of entries) {
    const key = text(kv, 'key');
    const value = field(kv, 'value');
    setAttribute(out, key, value === undefined || value === null ? null : anyValue(value, depth + 1));
  }
  return out;
}

function anyValue(value: unknown, depth: number): OtlpValue {
  if (depth > MAX_VALUE_DEPTH) throw new DecodeError('attribute values nested too deep');
  const o = object(value, 'value');
  if ('stringValue' in o || 'string_value' in o) return String(field(o, 'stringValue'));
  if ('boolValue' in o || 'bool_value' in o) return field(o, 'boolValue') === true;
  if ('intValue' in o || 'int_value' in o) return Number(field(o, 'intValue'));
  if ('doubleValue' in o || 'double_value' in o) return Number(field(o, 'doubleValue'));
  if ('arrayValue' in o || 'array_value' in o) {
    const array = field(o, 'arrayValue');
    return array === null || array === undefined ? [] : list(object(array, 'arrayValue'), 'values').map((v) => anyValue(v, depth + 1));
  }
  if ('kvlistValue' in o || 'kvlist_value' in o) {
    const kvlist = field(o, 'kvlistValue');
    return kvlist === null || kvlist === undefined ? {} : keyValues(list(object(kvlist, 'kvlistValue'), 'values'), depth + 1);
  }
  if ('bytesValue' in o || 'bytes_value' in o) return Buffer.from(String(field(o, 'bytesValue')), 'base64').toString('hex');
  return null;
}
