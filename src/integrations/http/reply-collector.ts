// A reply body as the package reads it, piece by piece or whole: bytes in
// (decoded as UTF-8), the model's reply out. A JSON body is a reply once it
// has ended; a stream of server-sent events as soon as its events amount to
// one (the SDKs stop reading at `[DONE]` and cancel the rest). Bounded in
// size, and it never throws: a body it cannot read is no reply.

import type { ReplyFormat } from '../../request-path/model-request';
import { replyAssembler, replyFromBody } from '../providers';
import type { Reply, ReplyAssembler } from './reply-assemblers';
import { EventStreamParser } from './server-sent-events';

/** A reply body longer than this is not collected further (the caller still gets all of it). */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

export class ReplyCollector {
  readonly #format: ReplyFormat;
  readonly #decoder = new TextDecoder();
  readonly #assembler: ReplyAssembler | undefined;
  readonly #events: EventStreamParser | undefined;
  #text = '';
  #size = 0;
  #over = false;

  /** `streamed`: the body is a stream of server-sent events (else one JSON value). */
  constructor(format: ReplyFormat, streamed: boolean) {
    this.#format = format;
    const assembler = streamed ? replyAssembler(format) : undefined;
    this.#assembler = assembler;
    this.#events = assembler
      ? new EventStreamParser(({ data, event }) => {
          if (data === '[DONE]') return;
          try {
            assembler.event(JSON.parse(data) as unknown, event);
          } catch {
            // not JSON: not part of a reply
          }
        })
      : undefined;
  }

  /** The next bytes of the body. */
  push(chunk: Uint8Array): void {
    if (this.#over || !this.#within(chunk.byteLength)) return;
    this.#safely(() => this.#add(this.#decoder.decode(chunk, { stream: true })));
  }

  /** The whole body, as text (read with `text()`). */
  pushText(text: string): void {
    if (this.#over || !this.#within(text.length)) return;
    this.#safely(() => this.#add(text));
  }

  /** The reply, if what was collected amounts to one; `ended`: the body was read to its end. */
  reply(ended: boolean): Reply | undefined {
    if (this.#over) return undefined;
    try {
      if (this.#events && this.#assembler) {
        if (ended) {
          this.#events.push(this.#decoder.decode());
          this.#events.end();
        }
        return this.#assembler.reply();
      }
      return ended ? replyFromBody(this.#format, JSON.parse(this.#text + this.#decoder.decode()) as unknown) : undefined;
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
    if (this.#events) this.#events.push(text);
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
