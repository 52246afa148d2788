// Server-sent events, parsed incrementally from decoded text.

/** One server-sent event: its `event:` name, if any, and its `data:` lines joined by newlines. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/** Feeds text chunks in; calls `onEvent` for each complete event (a blank line ends one). */
export class EventStreamParser {
  #buffer = '';
  readonly #onEvent: (event: ServerSentEvent) => void;

  /** `onEvent` is called once for each complete event that has data. */
  constructor(onEvent: (event: ServerSentEvent) => void) {
    this.#onEvent = onEvent;
  }

  /**
   * Adds decoded text and emits every event a blank line has completed. CR and
   * CRLF line ends count as LF; an event split across chunks waits for the
   * rest.
   */
  push(text: string): void {
    this.#buffer += text.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      this.#emit(block);
    }
  }

  /** The stream has ended: emits what is buffered, if anything, as a last event, even without its closing blank line. */
  end(): void {
    if (this.#buffer.trim() !== '') this.#emit(this.#buffer);
    this.#buffer = '';
  }

  #emit(block: string): void {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) data.push(line.slice(line.charAt(5) === ' ' ? 6 : 5));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
    if (data.length > 0) this.#onEvent({ event, data: data.join('\n') });
  }
}
