// What the viewer keeps of an OTLP export, whichever encoding it came in:
// spans with their events, and log records, each with its service name.

/** An OTLP AnyValue: kvlists become objects, bytes become hex strings. */
export type OtlpValue = string | number | boolean | null | OtlpValue[] | { [key: string]: OtlpValue };

export type OtlpAttributes = Record<string, OtlpValue>;

export interface OtlpSpanEvent {
  timeMs: number;
  name: string;
  attributes: OtlpAttributes;
}

export interface OtlpSpan {
  service: string | undefined;
  traceId: string;
  spanId: string;
  name: string;
  attributes: OtlpAttributes;
  events: OtlpSpanEvent[];
}

export interface OtlpLogRecord {
  service: string | undefined;
  timeMs: number;
  eventName: string | undefined;
  traceId: string;
  spanId: string;
  attributes: OtlpAttributes;
  body: OtlpValue;
}

/** Nanoseconds since the epoch (as OTLP sends them) to milliseconds. */
export function nanosToMs(nanos: bigint): number {
  return Number(nanos / 1_000_000n);
}

export function serviceOf(resource: OtlpAttributes): string | undefined {
  const name = resource['service.name'];
  return typeof name === 'string' ? name : undefined;
}

/** How deep AnyValues may nest before a payload is refused, so a hostile one cannot exhaust the stack. */
export const MAX_VALUE_DEPTH = 32;

/** Sets an attribute by defining it, so a key such as `__proto__` is stored as data and cannot reach a prototype. */
export function setAttribute(into: OtlpAttributes, key: string, value: OtlpValue): void {
  Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
}
