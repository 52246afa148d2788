// Reading the model's reply from an HTTP response without touching what the
// caller gets: from a clone of the response (the body is teed), read in the
// background, bounded in size, every failure swallowed. A reply that cannot
// be read is simply not observed, and the next request supplies it.

import type { ReplyFormat } from '../../request-path/model-request';
import { reportInternalError } from '../../telemetry/internal-error';
import { replyAssembler, replyFromBody, type Reply } from './reply-assemblers';
import { EventStreamParser } from './server-sent-events';

/** A reply body longer than this is not read further (its branch of the body is cancelled). */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** The parts of a fetch Response this reads. */
export interface ResponseLike {
  ok: boolean;
  headers: { get(name: string): string | null };
  clone(): ResponseLike;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Clones `response` and hands the reply it carries to `onReply` once read.
 * Returns at once; never throws; the caller's response is the one it passed.
 */
export function observeReply(response: unknown, format: ReplyFormat, onReply: (reply: Reply) => void): void {
  let copy: ResponseLike;
  try {
    const r = response as ResponseLike;
    if (!r || r.ok !== true || typeof r.clone !== 'function') return;
    copy = r.clone();
  } catch {
    return; // the body was already used, or this is not a fetch Response
  }
  void readReply(copy, format).then(
    (reply) => {
      if (reply === undefined || reply.messages.length === 0) return;
      try {
        onReply(reply);
      } catch (error) {
        reportInternalError('reading a reply', error);
      }
    },
    () => {},
  );
}

async function readReply(response: ResponseLike, format: ReplyFormat): Promise<Reply | undefined> {
  const body = response.body;
  if (body === null) return undefined;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const streamed = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  const assembler = streamed ? replyAssembler(format) : undefined;
  const events = assembler
    ? new EventStreamParser(({ data, event }) => {
        if (data === '[DONE]') return;
        try {
          assembler.event(JSON.parse(data) as unknown, event);
        } catch {
          // not JSON: not part of a reply
        }
      })
    : undefined;
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_REPLY_BYTES) {
        await reader.cancel();
        return undefined;
      }
      const chunk = decoder.decode(value, { stream: true });
      if (events) events.push(chunk);
      else text += chunk;
    }
  } catch {
    return undefined; // aborted, or the connection failed: the caller sees that on its own branch
  }
  if (events && assembler) {
    events.push(decoder.decode());
    events.end();
    return assembler.reply();
  }
  try {
    return replyFromBody(format, JSON.parse(text + decoder.decode()) as unknown);
  } catch {
    return undefined;
  }
}
