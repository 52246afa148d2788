// OTLP/HTTP protobuf payloads (ExportTraceServiceRequest and
// ExportLogsServiceRequest) decoded into the viewer's model. Field numbers are
// those of opentelemetry-proto; fields the viewer does not use are skipped.

import { DecodeError, boolOf, bytesOf, doubleOf, fieldsOf, fixed64Of, hexOf, int64Of, stringOf, type WireField } from './protobuf';
import {
  MAX_VALUE_DEPTH,
  nanosToMs,
  setAttribute,
  serviceOf,
  type OtlpAttributes,
  type OtlpLogRecord,
  type OtlpSpan,
  type OtlpSpanEvent,
  type OtlpValue,
} from './otlp-model';

/** ExportTraceServiceRequest → spans. */
export function decodeTraces(bytes: Uint8Array): OtlpSpan[] {
  return scopedItems(bytes, span);
}

/** ExportLogsServiceRequest → log records. */
export function decodeLogs(bytes: Uint8Array): OtlpLogRecord[] {
  return scopedItems(bytes, logRecord);
}

/**
 * The items of a request shaped resource → scope → item, as both exports are
 * (field 1 the resource spans or logs; in each, field 1 the resource and field 2
 * the scopes; in each scope, field 2 the items), each decoded with its service.
 */
function scopedItems<T>(bytes: Uint8Array, decode: (item: Uint8Array, service: string | undefined) => T): T[] {
  const items: T[] = [];
  for (const f of fieldsOf(bytes)) {
    if (f.field !== 1) continue;
    let resource: OtlpAttributes = {};
    const scopes: Uint8Array[] = [];
    for (const g of fieldsOf(bytesOf(f))) {
      if (g.field === 1) resource = resourceAttributes(bytesOf(g));
      else if (g.field === 2) scopes.push(bytesOf(g));
    }
    const service = serviceOf(resource);
    for (const scope of scopes) {
      for (const g of fieldsOf(scope)) if (g.field === 2) items.push(decode(bytesOf(g), service));
    }
  }
  return items;
}

function resourceAttributes(bytes: Uint8Array): OtlpAttributes {
  const attributes: OtlpAttributes = {};
  for (const f of fieldsOf(bytes)) if (f.field === 1) addKeyValue(attributes, bytesOf(f), 0);
  return attributes;
}

function span(bytes: Uint8Array, service: string | undefined): OtlpSpan {
  const out: OtlpSpan = { service, traceId: '', spanId: '', name: '', attributes: {}, events: [] };
  for (const f of fieldsOf(bytes)) {
    if (f.field === 1) out.traceId = hexOf(bytesOf(f));
    else if (f.field === 2) out.spanId = hexOf(bytesOf(f));
    else if (f.field === 5) out.name = stringOf(f);
    else if (f.field === 9) addKeyValue(out.attributes, bytesOf(f), 0);
    else if (f.field === 11) out.events.push(spanEvent(bytesOf(f)));
  }
  return out;
}

function spanEvent(bytes: Uint8Array): OtlpSpanEvent {
  const out: OtlpSpanEvent = { timeMs: 0, name: '', attributes: {} };
  for (const f of fieldsOf(bytes)) {
    if (f.field === 1) out.timeMs = nanosToMs(fixed64Of(f));
    else if (f.field === 2) out.name = stringOf(f);
    else if (f.field === 3) addKeyValue(out.attributes, bytesOf(f), 0);
  }
  return out;
}

function logRecord(bytes: Uint8Array, service: string | undefined): OtlpLogRecord {
  const out: OtlpLogRecord = { service, timeMs: 0, eventName: undefined, traceId: '', spanId: '', attributes: {}, body: null };
  let observedMs = 0;
  for (const f of fieldsOf(bytes)) {
    if (f.field === 1) out.timeMs = nanosToMs(fixed64Of(f));
    else if (f.field === 11) observedMs = nanosToMs(fixed64Of(f));
    else if (f.field === 5) out.body = anyValue(bytesOf(f), 0);
    else if (f.field === 6) addKeyValue(out.attributes, bytesOf(f), 0);
    else if (f.field === 9) out.traceId = hexOf(bytesOf(f));
    else if (f.field === 10) out.spanId = hexOf(bytesOf(f));
    else if (f.field === 12) out.eventName = stringOf(f);
  }
  if (out.timeMs === 0) out.timeMs = observedMs;
  return out;
}

function addKeyValue(into: OtlpAttributes, bytes: Uint8Array, depth: number): void {
  let key: string | undefined;
  let value: OtlpValue = null;
  for (const f of fieldsOf(bytes)) {
    if (f.field === 1) key = stringOf(f);
    else if (f.field === 2) value = anyValue(bytesOf(f), depth + 1);
  }
  if (key !== undefined) setAttribute(into, key, value);
}

function anyValue(bytes: Uint8Array, depth: number): OtlpValue {
  if (depth > MAX_VALUE_DEPTH) throw new DecodeError('attribute values nested too deep');
  let value: OtlpValue = null;
  for (const f of fieldsOf(bytes)) value = oneOf(f, depth) ?? value;
  return value;
}

function oneOf(f: WireField, depth: number): OtlpValue | undefined {
  switch (f.field) {
    case 1:
      return stringOf(f);
    case 2:
      return boolOf(f);
    case 3:
      return int64Of(f);
    case 4:
      return doubleOf(f);
    case 5: {
      const values: OtlpValue[] = [];
      for (const g of fieldsOf(bytesOf(f))) if (g.field === 1) values.push(anyValue(bytesOf(g), depth + 1));
      return values;
    }
    case 6: {
      const values: OtlpAttributes = {};
      for (const g of fieldsOf(bytesOf(f))) if (g.field === 1) addKeyValue(values, bytesOf(g), depth + 1);
      return values;
    }
    case 7:
      return hexOf(bytesOf(f));
    default:
      return undefined;
  }
}
