// Newline-delimited JSON (NDJSON), split incrementally from decoded text:
// one value a line, lines ending in LF (a CR before it is dropped), blank
// lines skipped. Ollama streams its replies this way.

/** Feeds text chunks in; calls `onLine` with each complete non-blank line. */
export class JsonLinesParser {
  /** The text of a line not ended yet. */
  #line = '';
  readonly #onLine: (line: string) => void;

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  /** Adds decoded text and emits every line it completes; a line split across chunks waits for the rest. */
  push(text: string): void {
    let at = 0;
    for (let lf = text.indexOf('\n'); lf >= 0; lf = text.indexOf('\n', at)) {
      this.#take(this.#line + text.slice(at, lf));
      this.#line = '';
      at = lf + 1;
    }
    this.#line += text.slice(at);
  }

  /** The stream has ended: a last line without its line end is emitted too. */
  end(): void {
    const line = this.#line;
    this.#line = '';
    this.#take(line);
  }

  #take(line: string): void {
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.trim() !== '') this.#onLine(trimmed);
  }
}
