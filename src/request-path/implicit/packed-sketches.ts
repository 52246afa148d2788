// A conversation's sketches, packed: one byte per message for the shapes most
// messages share (a user message, an assistant message with two calls), and
// for a message with a tool call id, the shape's byte and the id alone. A
// sketch object per tool result cost more than the rest of the message's
// keep; the sketches are rebuilt only when a violation needs them.

import type { MessageSketch } from '../../invariant/sketch';

/** Codes below this are shapes kept whole; from it up to `OWN`, shapes of a sketch whose tool call id is kept apart. */
const WITH_ID = 128;
/** A sketch kept as it is (a preview, with content capture on; a shape past the table's room). */
const OWN = 255;
const ROOM = WITH_ID;

/** The shapes, by code: whole sketches below `WITH_ID`, templates (the id left out) from it. Shared by every conversation. */
const shapes: MessageSketch[] = [];
const templates: Array<{ role: string; toolCalls: number; name: string | null }> = [];
const shapeCodes = new Map<string, number>();
const templateCodes = new Map<string, number>();
let lastTemplate = -1;
/** The code of a shared sketch object seen before (most sketches are one of a few frozen objects). */
const codeOfShared = new WeakMap<MessageSketch, number>();

/** The code for `s`; what is kept apart for it (an id, the sketch itself), if anything, is pushed onto `apart`. */
function encode(s: MessageSketch, apart: Array<string | MessageSketch>): number {
  const known = codeOfShared.get(s);
  if (known !== undefined) return known;
  if (!('preview' in s)) {
    const code = shapeCode('system', s);
    if (code !== OWN && Object.isFrozen(s)) codeOfShared.set(s, code);
    return code === OWN ? own(s, apart) : code;
  }
  if (s.preview !== null) return own(s, apart);
  if (s.toolCallId === null) {
    const code = shapeCode(`${s.role}\u0000${s.toolCalls}\u0000${s.name}`, s);
    if (code !== OWN && Object.isFrozen(s)) codeOfShared.set(s, code);
    return code === OWN ? own(s, apart) : code;
  }
  // Tool results in a row mostly share their shape (a tool's name): the last one is tried before building a key.
  const last = templates[lastTemplate];
  if (last !== undefined && last.role === s.role && last.toolCalls === s.toolCalls && last.name === s.name) {
    apart.push(s.toolCallId);
    return WITH_ID + lastTemplate;
  }
  const key = `${s.role}\u0000${s.toolCalls}\u0000${s.name}`;
  let t = templateCodes.get(key);
  if (t === undefined) {
    if (templates.length >= OWN - WITH_ID) return own(s, apart);
    t = templates.length;
    templates.push({ role: s.role, toolCalls: s.toolCalls, name: s.name });
    templateCodes.set(key, t);
  }
  lastTemplate = t;
  apart.push(s.toolCallId);
  return WITH_ID + t;
}

function own(s: MessageSketch, apart: Array<string | MessageSketch>): number {
  apart.push(s);
  return OWN;
}

function shapeCode(key: string, s: MessageSketch): number {
  let code = shapeCodes.get(key);
  if (code === undefined) {
    if (shapes.length >= ROOM) return OWN;
    code = shapes.length;
    shapes.push(Object.isFrozen(s) ? s : Object.freeze({ ...s }));
    shapeCodes.set(key, code);
  }
  return code;
}

/**
 * The sketches of a conversation's messages: a code per message, and in
 * order what codes keep apart. The codes grow by half again when full, not
 * by one copy per append: a new typed array per request and per reply (its
 * store outside the heap past 64 bytes) cost more than the rest of an
 * append, and the room left is at most half a byte a message.
 */
export class PackedSketches {
  #codes: Uint8Array;
  #length = 0;
  #apart: ReadonlyArray<string | MessageSketch>;

  constructor(sketches: readonly MessageSketch[] = []) {
    this.#codes = new Uint8Array(sketches.length);
    this.#apart = [];
    this.append(sketches);
  }

  get length(): number {
    return this.#length;
  }

  /** Appends sketches. */
  append(sketches: readonly MessageSketch[]): void {
    if (sketches.length === 0) return;
    const known = this.#length;
    const needed = known + sketches.length;
    if (needed > this.#codes.length) {
      const codes = new Uint8Array(Math.max(needed, known + (known >> 1) + 8));
      codes.set(this.#codes.subarray(0, known));
      this.#codes = codes;
    }
    const codes = this.#codes;
    const apart: Array<string | MessageSketch> = [];
    for (let i = 0; i < sketches.length; i++) {
      codes[known + i] = encode(sketches[i]!, apart);
    }
    this.#length = needed;
    if (apart.length > 0) this.#apart = this.#apart.concat(apart);
  }

  /** Drops the last sketch. */
  dropLast(): void {
    const length = this.#length;
    if (length === 0) return;
    const code = this.#codes[length - 1]!;
    this.#length = length - 1;
    if (code >= WITH_ID) this.#apart = this.#apart.slice(0, -1);
  }

  /** The first `length` sketches (all by default), rebuilt. */
  toArray(length = this.#length): MessageSketch[] {
    const out = new Array<MessageSketch>(length);
    let next = 0;
    for (let i = 0; i < length; i++) {
      const code = this.#codes[i]!;
      if (code < WITH_ID) out[i] = shapes[code]!;
      else if (code === OWN) out[i] = this.#apart[next++] as MessageSketch;
      else {
        const t = templates[code - WITH_ID]!;
        out[i] = { role: t.role, preview: null, toolCalls: t.toolCalls, toolCallId: this.#apart[next++] as string, name: t.name };
      }
    }
    return out;
  }
}
