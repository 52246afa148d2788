// Server-sent events, parsed incrementally from decoded text, as the
// HTML standard's event-stream interpretation reads them: lines end in CRLF,
// LF or CR (a CR that ends one chunk and the LF that starts the next are one
// line end); a line is a field name, a colon and a value, of which one
// leading space is stripped and nothing else; a blank line ends an event.
//
// Why not `eventsource-parser` (in the dependency tree through the AI SDK):
// at the end of a stream it drops an event that no blank line closed
// (`reset({ consume: true })` parses the last line but dispatches nothing),
// while the SDKs whose replies this reads deliver it (the openai package's
// `SSEDecoder.flush`), and the check must read the reply the caller reads.
// Taking it would mean a wrapper for that case, a fourth runtime dependency
// every user installs and a lazy load to keep it off the cold start, for
// about forty lines saved; this reader follows the standard and is held to
// it, under any chunking, by test/server-sent-events.test.ts.

/** One server-sent event: its `event:` name, if any, and its `data:` lines joined by newlines. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/** Feeds text chunks in; calls `onEvent` for each complete event (a blank line ends one). */
export class EventStreamParser {
  /** The text of a line not ended yet. */
  #line = '';
  /** The last chunk ended in CR: an LF that starts the next one ends no further line. */
  #afterCR = false;
  #started = false;
  #event: string | undefined = undefined;
  #data: string[] = [];
  readonly #onEvent: (event: ServerSentEvent) => void;

  /** `onEvent` is called once for each complete event that has data. */
  constructor(onEvent: (event: ServerSentEvent) => void) {
    this.#onEvent = onEvent;
  }

  /** Adds decoded text and emits every event a blank line has completed; an event split across chunks waits for the rest. */
  push(text: string): void {
    let at = 0;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) at = 1; // a byte order mark is not content
    }
    if (this.#afterCR && at < text.length) {
      this.#afterCR = false;
      if (text.charCodeAt(at) === 0x0a) at++;
    }
    while (at < text.length) {
      const lf = text.indexOf('\n', at);
      const cr = text.indexOf('\r', at);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) {
        this.#line += text.slice(at);
        return;
      }
      this.#takeLine(this.#line + text.slice(at, end));
      this.#line = '';
      at = end + 1;
      if (end === cr) {
        if (at === text.length) this.#afterCR = true;
        else if (text.charCodeAt(at) === 0x0a) at++;
      }
    }
  }

  /** The stream has ended: emits what is buffered, if anything, as a last event, even without its closing blank line. */
  end(): void {
    if (this.#line !== '') this.#takeLine(this.#line);
    this.#line = '';
    this.#afterCR = false;
    this.#dispatch();
  }

  #takeLine(line: string): void {
    if (line === '') return this.#dispatch();
    if (line.charCodeAt(0) === 0x3a) return; // a comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }

  #dispatch(): void {
    if (this.#data.length > 0) this.#onEvent({ event: this.#event, data: this.#data.join('\n') });
    this.#event = undefined;
    this.#data = [];
  }
}
