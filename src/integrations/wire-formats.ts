// The provider wire formats the transport seams read through one list: how a
// provider's request paths are recognised, how a request body is read into
// canonical messages, and how its reply (a JSON body or a stream of
// server-sent events) is read. The fetch seam and the reply reader
// (http/reply-reader.ts, http/reply-collector.ts) go through `WIRE_FORMATS`;
// adding a provider whose client calls `globalThis.fetch` is one folder and
// one entry here.

import type { ReplyFormat } from '../request-path/model-request';
import type { Reply, ReplyAssembler } from './http/reply-assemblers';
import type { WireFormat } from './wire-format';
import { anthropicWireFormat } from './anthropic/wire-format';
import { geminiWireFormat } from './gemini/wire-format';
import { openaiChatWireFormat, openaiResponsesWireFormat } from './openai/wire-format';

/** Every provider wire format; their paths do not overlap. */
export const WIRE_FORMATS: readonly WireFormat[] = [openaiChatWireFormat, openaiResponsesWireFormat, anthropicWireFormat, geminiWireFormat];

/** The listed wire format whose model path `path` is, if any. */
export function wireFormatOfPath(path: string): WireFormat | undefined {
  return WIRE_FORMATS.find((format) => format.isModelPath(path));
}

/** The listed wire format named `name`, if any. */
export function wireFormatNamed(name: ReplyFormat): WireFormat | undefined {
  return WIRE_FORMATS.find((format) => format.name === name);
}

/** The reply in a JSON response body of `format`. */
export function replyFromBody(format: ReplyFormat, body: unknown): Reply | undefined {
  return wireFormatNamed(format)?.replyFromBody(body);
}

/**
 * A fresh assembler for one reply of `format` streamed as server-sent
 * events: it collects the events and, once the stream has ended, builds the
 * reply they amount to (docs/behaviour.md §8.4). An unknown format reads no reply.
 */
export function replyAssembler(format: ReplyFormat): ReplyAssembler {
  return wireFormatNamed(format)?.assembler() ?? { event: () => {}, reply: () => undefined };
}

export type { WireFormat } from './wire-format';
