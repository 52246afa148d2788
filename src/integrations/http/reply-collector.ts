// A reply body as the package reads it, piece by piece or whole: bytes in
// (decoded as UTF-8), the model's reply out. A JSON body is a reply once it
// has ended; a stream (server-sent events, or newline-delimited JSON as
// Ollama streams) as soon as what it carried amounts to one: the SDKs stop
// reading at the last event (`[DONE]`, Ollama's `done: true`) and cancel the
// rest, or never read the body's end at all. Bounded in size, and it never
// throws: a body it cannot read is no reply.

import type { ReplyFormat } from '../../request-path/model-request';
import { replyAssembler, replyFromBody } from '../providers';
import type { Reply, ReplyAssembler } from './reply-assemblers';
import { EventStreamParser } from './server-sent-events';
import { JsonLinesParser } from './json-lines';

/** A reply body longer than this is not collected further (the caller still gets all of it). */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** How a reply body is framed: one JSON value, server-sent events, or one JSON value a line. */
export type ReplyFraming = 'json' | 'events' | 'lines';

/**
 * The framing of a response body by its content type: the one place that
 * decides which bodies are streams and how they are split. An SSE stream is
 * `text/event-stream`; a newline-delimited JSON stream (Ollama's) is
 * `application/x-ndjson` (or `application/jsonl`, `application/json-seq`'s
 * line form); anything else is read as one JSON value.
 */
export function framingOf(contentType: string | null): ReplyFraming {
  if (contentType !== null && contentType.startsWith('application/json')) return 'json'; // what nearly every reply says
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('text/event-stream')) return 'events';
  if (/application\/(x-)?(ndjson|jsonl|jsonlines)\b/.test(type)) return 'lines';
  return 'json';
}

/**
 * The reply in a JSON body read whole as `text`, if it is one within
 * `MAX_REPLY_BYTES`: the one place a JSON reply body is read from its text.
 * Throws on text that is not JSON.
 */
export function replyFromText(format: ReplyFormat, text: string): Reply | undefined {
  return text.length > MAX_REPLY_BYTES ? undefined : replyFromBody(format, JSON.parse(text) as unknown);
}

/** Something that splits decoded text into the stream's items, and flushes the last at the end. */
interface StreamParser {
  push(text: string): void;
  end(): void;
}

export class ReplyCollector {
  readonly #format: ReplyFormat;
  /** Made at the first chunk of bytes: a body read whole with `text()` (what the SDKs do with JSON) needs none. */
  #decoder: InstanceType<typeof TextDecoder> | undefined;
  readonly #assembler: ReplyAssembler | undefined;
  readonly #stream: StreamParser | undefined;
  #text = '';
  #size = 0;
  #over = false;

  /** `framing`: how the body is framed (`framingOf`). */
  constructor(format: ReplyFormat, framing: ReplyFraming) {
    this.#format = format;
    if (framing === 'json') return;
    const assembler = replyAssembler(format);
    this.#assembler = assembler;
    const take = (data: string, event: string | undefined): void => {
      try {
        assembler.event(JSON.parse(data) as unknown, event);
      } catch {
        // not JSON: not part of a reply
      }
    };
    this.#stream =
      framing === 'events'
        ? new EventStreamParser(({ data, event }) => {
            if (data !== '[DONE]') take(data, event);
          })
        : new JsonLinesParser((line) => take(line, undefined));
  }

  /** The next bytes of the body. */
  push(chunk: Uint8Array): void {
    if (this.#over || !this.#within(chunk.byteLength)) return;
    this.#safely(() => this.#add((this.#decoder ??= new TextDecoder()).decode(chunk, { stream: true })));
  }

  /** The whole body, as text (read with `text()`). */
  pushText(text: string): void {
    if (this.#over || !this.#within(text.length)) return;
    this.#safely(() => this.#add(text));
  }

  /**
   * Whether the stream has carried its last event (the wire format's
   * assembler says so, as Ollama's `done: true` does): the reply is whole
   * though the caller may never read the body's end.
   */
  finished(): boolean {
    if (this.#over || this.#assembler?.finished === undefined) return false;
    try {
      return this.#assembler.finished();
    } catch {
      return false;
    }
  }

  /** The reply, if what was collected amounts to one; `ended`: the body was read to its end. */
  reply(ended: boolean): Reply | undefined {
    if (this.#over) return undefined;
    try {
      if (this.#stream && this.#assembler) {
        if (ended) {
          if (this.#decoder) this.#stream.push(this.#decoder.decode());
          this.#stream.end();
        }
        return this.#assembler.reply();
      }
      return ended ? replyFromText(this.#format, this.#decoder ? this.#text + this.#decoder.decode() : this.#text) : undefined;
    } catch {
      return undefined; // not JSON, or not a reply
    }
  }

  #within(size: number): boolean {
    this.#size += size;
    if (this.#size <= MAX_REPLY_BYTES) return true;
    this.#over = true;
    this.#text = '';
    return false;
  }

  #add(text: string): void {
    if (this.#stream) this.#stream.push(text);
    else this.#text += text;
  }

  #safely(fn: () => void): void {
    try {
      fn();
    } catch {
      this.#over = true; // an assembler that failed on this body: it is not observed
    }
  }
}
