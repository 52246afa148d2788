// The provider wire formats the transport seams read through a list: how a
// provider's request paths are recognised, how a request body is read into
// canonical messages, and how its reply (a JSON body or a stream of
// server-sent events) is read. The fetch seam and the reply reader loop over
// `WIRE_FORMATS`; adding a provider that needs no client hook of its own is
// one folder and one entry here.

import type { ModelRequest, ReplyFormat } from '../request-path/model-request';
import type { Reply, ReplyAssembler } from './http/reply-assemblers';
import { geminiWireFormat } from './gemini/wire-format';

/** One provider API as the transport seams see it. */
export interface WireFormat {
  /** The `replyFormat` its requests carry, `{provider}.{api}`; unique in the list. */
  readonly name: ReplyFormat;
  /** A cheap test on a URL string: false when it cannot name one of its paths, so most fetches skip parsing the URL. */
  mayBeModelURL(url: string): boolean;
  /** Whether a URL path (`URL.pathname`) is one of its model requests. */
  isModelPath(path: string): boolean;
  /** The model request a POST of the JSON `body` to `path` is (undefined: not one). Never throws. */
  request(path: string, body: Record<string, unknown>): ModelRequest | undefined;
  /** The reply in a JSON response body (undefined: none). */
  replyFromBody(body: unknown): Reply | undefined;
  /** A fresh assembler for one reply streamed as server-sent events. */
  assembler(): ReplyAssembler;
}

/** Every listed provider wire format. */
export const WIRE_FORMATS: readonly WireFormat[] = [geminiWireFormat];

/** The listed wire format whose model path `path` is, if any. */
export function wireFormatOfPath(path: string): WireFormat | undefined {
  return WIRE_FORMATS.find((format) => format.isModelPath(path));
}

/** The listed wire format named `name`, if any. */
export function wireFormatNamed(name: ReplyFormat): WireFormat | undefined {
  return WIRE_FORMATS.find((format) => format.name === name);
}
