// What a provider API gives the transport seams (the fetch seam, the reply
// reader): one of its provider's wire formats (providers.ts), defined in the
// provider's folder.

import type { ModelRequest, ReplyFormat } from '../request-path/model-request';
import type { Reply, ReplyAssembler } from './http/reply-assemblers';

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
  /** A fresh assembler for one reply streamed as server-sent events or NDJSON lines (http/reply-collector.ts frames them). */
  assembler(): ReplyAssembler;
}
