// The work of the Bedrock middleware (client-hook.ts), loaded at the first
// Converse request: the request checked before it is serialised, and the
// reply read from the command's output, the JSON reply's message or the
// events of the stream as the caller iterates them.

import { checkModelRequest, checksRequests } from '../../request-path/check-request';
import type { PendingReply } from '../../request-path/reply';
import { contained, reportInternalError } from '../../telemetry/internal-error';
import { isObject } from '../../reading/canonical';
import { converseModelRequest } from './model-request';
import { converseAssembler, converseReply } from './replies';

const SEAM = { name: 'Bedrock client hook', mayThrow: true };

/**
 * Checks a Converse command's input; returns where its reply goes. Throws
 * only strict mode's violation, which rejects the caller's `send` before
 * anything is serialised or sent (the retry middleware is further down the
 * stack, so it is one attempt).
 */
export function checkConverse(input: unknown): PendingReply | undefined {
  if (!checksRequests()) return undefined; // switched off: the request is not even read
  let request;
  try {
    request = converseModelRequest(input);
  } catch (error) {
    // The adapter never throws, so only a hostile input gets here.
    reportInternalError(SEAM.name, error, 'the request went ahead unchecked');
    return undefined;
  }
  return request === undefined ? undefined : checkModelRequest(request, {}, SEAM);
}

/**
 * Hands the reply in a Converse output to `pending`. A ConverseStream
 * output's `stream` is replaced by one that yields the same events, in the
 * same order, as the caller asks for them: the reply is assembled from them
 * and reported at `messageStop`. Resolves once the reply is reported (a
 * shared store's check, bounded); never rejects.
 */
export async function observeConverse(output: unknown, pending: PendingReply): Promise<void> {
  if (!isObject(output)) return;
  if (isAsyncIterable(output.stream)) {
    output.stream = observedStream(output.stream, pending);
    return;
  }
  const messages = contained(SEAM.name, () => converseReply(output), undefined);
  if (messages === undefined) return;
  contained(SEAM.name, () => pending.reply(messages), undefined);
  await pending.settled?.();
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** `stream`, iterated for the caller: every event passed on as it came, the reply reported once `messageStop` came. */
function observedStream(stream: AsyncIterable<unknown>, pending: PendingReply): AsyncIterable<unknown> {
  const assembler = converseAssembler();
  let reported = false;
  /** Reports the reply once it is whole; true when it was reported now. */
  const report = (): boolean => {
    if (reported) return false;
    const messages = contained(SEAM.name, () => assembler.reply(), undefined);
    if (messages === undefined) return false;
    reported = true;
    contained(SEAM.name, () => pending.reply(messages), undefined);
    return true;
  };
  return {
    [Symbol.asyncIterator](): AsyncIterator<unknown> {
      const events = stream[Symbol.asyncIterator]();
      const iterator: AsyncIterator<unknown> = {
        async next(...args: [] | [unknown]) {
          const result = await events.next(...args);
          if (result.done !== true && !reported) {
            contained(SEAM.name, () => assembler.event(result.value), undefined);
            if (report()) await pending.settled?.();
          }
          return result;
        },
      };
      if (typeof events.return === 'function') iterator.return = (value?: unknown) => events.return!(value);
      if (typeof events.throw === 'function') iterator.throw = (error?: unknown) => events.throw!(error);
      return iterator;
    },
  };
}
