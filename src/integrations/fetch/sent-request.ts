// The request a fetch call sends, read from its arguments as fetch reads
// them: the one place that decides the method, headers and body of a call
// made with a URL and an init, a `Request`, or a `Request` and an init
// (whose members, where given, replace the Request's: fetch builds
// `new Request(input, init)`). Every member is read once (read-once.ts), and
// nothing the caller sends is consumed: a Request's body is read from its
// clone (a tee of the body stream: the original still sends every byte).

import { InitReader, urlMember } from './read-once';

/** The body of a call: its text now, its text once read (a Request's body, a Blob), or none the seam reads. */
export type SentBody = { text: string } | { later: Promise<string | undefined> } | undefined;

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export class SentRequest {
  readonly init: InitReader;
  readonly #input: unknown;
  /** The input when it is a fetch Request: then it gives the members the init does not. */
  readonly #request: Request | undefined;
  #headers: unknown;
  #headersRead = false;

  constructor(input: unknown, init: unknown) {
    this.#input = input;
    this.init = new InitReader(init);
    this.#request = typeof Request === 'function' && input instanceof Request ? input : undefined;
  }

  /** The URL member of a Request (or an object standing for one); undefined for a string or URL input. */
  url(): unknown {
    return urlMember(this.#input);
  }

  /** The method, upper-cased as fetch normalises the usual ones. */
  method(): string {
    const given = this.init.get('method') ?? this.#request?.method;
    return String(given ?? 'GET').toUpperCase();
  }

  /** The headers fetch sends (the init's replace the Request's when given), as given: a Headers, record or pairs. */
  headers(): unknown {
    if (!this.#headersRead) {
      this.#headersRead = true;
      this.#headers = this.init.get('headers') ?? this.#request?.headers;
    }
    return this.#headers;
  }

  /**
   * The body fetch sends, as text: a string as it is, bytes (an ArrayBuffer
   * or a view) decoded now, a Blob or a Request's body once read from a
   * copy. Undefined for anything else (a stream, form data: not a JSON
   * model request) and for a Request whose body cannot be copied (already
   * read: fetch then fails as it would).
   */
  body(): SentBody {
    const given = this.init.get('body');
    if (given !== undefined && given !== null) return bodyText(given);
    const request = this.#request;
    if (request === undefined || request.body === null) return undefined;
    let copy: Request;
    try {
      copy = request.clone();
    } catch {
      return undefined;
    }
    return {
      later: copy.arrayBuffer().then(
        (bytes) => decoder.decode(bytes),
        () => undefined,
      ),
    };
  }
}

function bodyText(body: unknown): SentBody {
  if (typeof body === 'string') return { text: body };
  // Any view: the decoder reads the bytes it spans (the cast only satisfies the DOM typing).
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { text: decoder.decode(body as Uint8Array) };
  if (typeof Blob === 'function' && body instanceof Blob)
    return {
      later: body.arrayBuffer().then(
        (b) => decoder.decode(b),
        () => undefined,
      ),
    };
  return undefined;
}
