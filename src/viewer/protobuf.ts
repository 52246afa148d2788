// A reader of the protobuf wire format, just enough to walk OTLP messages
// without a protobuf dependency. Every read is bounds-checked: a hostile or
// truncated payload throws DecodeError instead of reading past its end.

/** The payload is not valid protobuf (or not the message it claims to be). */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

/** One field as found on the wire; `value` is a sub-slice for length-delimited fields. */
export type WireField =
  | { field: number; wire: 0; value: bigint }
  | { field: number; wire: 1; value: Uint8Array }
  | { field: number; wire: 2; value: Uint8Array }
  | { field: number; wire: 5; value: Uint8Array };

/** The fields of one message, in wire order. Unknown fields are returned too; callers skip them. */
export function* fieldsOf(bytes: Uint8Array): Generator<WireField> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (at >= bytes.length) throw new DecodeError('truncated varint');
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result & 0xffffffffffffffffn;
    }
    throw new DecodeError('varint longer than 10 bytes');
  };
  const take = (length: number): Uint8Array => {
    if (length > bytes.length - at) throw new DecodeError('field runs past the end of its message');
    const slice = bytes.subarray(at, at + length);
    at += length;
    return slice;
  };
  while (at < bytes.length) {
    const tag = varint();
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (field === 0) throw new DecodeError('field number 0');
    switch (wire) {
      case 0:
        yield { field, wire, value: varint() };
        break;
      case 1:
        yield { field, wire, value: take(8) };
        break;
      case 2: {
        const length = varint();
        if (length > BigInt(bytes.length)) throw new DecodeError('field runs past the end of its message');
        yield { field, wire, value: take(Number(length)) };
        break;
      }
      case 5:
        yield { field, wire, value: take(4) };
        break;
      default:
        // Groups (3, 4) are not used by OTLP; 6 and 7 do not exist.
        throw new DecodeError(`unsupported wire type ${wire}`);
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

export function stringOf(field: WireField): string {
  if (field.wire !== 2) throw new DecodeError(`field ${field.field} is not a string`);
  return utf8.decode(field.value);
}

export function bytesOf(field: WireField): Uint8Array {
  if (field.wire !== 2) throw new DecodeError(`field ${field.field} is not bytes`);
  return field.value;
}

/** fixed64 as an unsigned bigint (OTLP times, in nanoseconds). */
export function fixed64Of(field: WireField): bigint {
  if (field.wire !== 1) throw new DecodeError(`field ${field.field} is not fixed64`);
  return new DataView(field.value.buffer, field.value.byteOffset, 8).getBigUint64(0, true);
}

export function doubleOf(field: WireField): number {
  if (field.wire !== 1) throw new DecodeError(`field ${field.field} is not a double`);
  return new DataView(field.value.buffer, field.value.byteOffset, 8).getFloat64(0, true);
}

/** A varint read as int64 (two's complement), returned as a number (exact up to 2^53). */
export function int64Of(field: WireField): number {
  if (field.wire !== 0) throw new DecodeError(`field ${field.field} is not a varint`);
  return Number(BigInt.asIntN(64, field.value));
}

export function boolOf(field: WireField): boolean {
  if (field.wire !== 0) throw new DecodeError(`field ${field.field} is not a bool`);
  return field.value !== 0n;
}

export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
