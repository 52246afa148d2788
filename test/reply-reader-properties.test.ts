// Stream lifecycles through the reply reader's pass-through body: whatever
// the caller does (reads some chunks, then reads on to the end, cancels,
// aborts, or breaks out of `for await`), it gets exactly the bytes an
// unobserved response gives, its cancel settles at once, and nothing the
// package does is thrown into it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observeReplyAsRead } from '../src/integrations/http/reply-reader';

type Ending = 'end' | 'cancel' | 'abort' | 'break';

/** A fetch Response over a byte stream of `chunks` (as undici's bodies are), endless after them when `endless`. */
function response(chunks: Uint8Array[], endless: boolean, signal: AbortSignal): Response {
  let at = 0;
  const body = new ReadableStream({
    type: 'bytes',
    async pull(controller) {
      if (signal.aborted) return controller.error(signal.reason);
      if (at < chunks.length) return controller.enqueue(chunks[at++]!.slice());
      // As a model streams: a chunk now and then, not a loop that never lets a timer run.
      if (endless)
        return new Promise((resolve) => setTimeout(() => resolve(controller.enqueue(new TextEncoder().encode('data: {}\n\n'))), 1));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** False after a second: far longer than a cancel takes, far shorter than never. */
const bound = () => new Promise<boolean>((resolve) => setTimeout(resolve, 1_000, false));

/** What the caller got: its bytes, whether its last call settled within the bound, and anything thrown that was not the abort. */
async function consume(
  r: Response,
  reads: number,
  ending: Ending,
  abort: () => void,
): Promise<{ bytes: number[]; settled: boolean; thrown: unknown }> {
  const bytes: number[] = [];
  try {
    if (ending === 'break') {
      const loop = async () => {
        let n = 0;
        for await (const chunk of r.body! as unknown as AsyncIterable<Uint8Array>) {
          if (n++ >= reads) break;
          bytes.push(...chunk);
        }
        return true;
      };
      return { bytes, settled: await Promise.race([loop(), bound()]), thrown: undefined };
    }
    const reader = r.body!.getReader();
    for (let n = 0; n < reads; n++) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes.push(...value);
    }
    const last: Promise<unknown> =
      ending === 'cancel'
        ? reader.cancel('stop')
        : ending === 'abort'
          ? (abort(), reader.read().catch(() => undefined))
          : (async () => {
              for (;;) {
                const { done, value } = await reader.read();
                if (done) return;
                bytes.push(...value);
              }
            })();
    const settled = await Promise.race([last.then(() => true), bound()]);
    return { bytes, settled, thrown: undefined };
  } catch (error) {
    return { bytes, settled: true, thrown: error };
  }
}

describe('the pass-through body under random lifecycles', () => {
  it('gives the caller the bytes an unobserved response gives, settles promptly, throws nothing of its own', async () => {
    const chunk = fc.uint8Array({ minLength: 1, maxLength: 64 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunk, { maxLength: 8 }),
        fc.boolean(),
        fc.nat({ max: 10 }),
        fc.constantFrom<Ending>('end', 'cancel', 'abort', 'break'),
        fc.constantFrom('openai.chat', 'openai.responses', 'anthropic.messages') as fc.Arbitrary<'openai.chat'>,
        async (chunks, endless, reads, ending, format) => {
          // An endless stream read "to the end" never ends, with the package or without: not a lifecycle to compare.
          fc.pre(!(endless && ending === 'end'));
          const run = async (observed: boolean) => {
            const controller = new AbortController();
            const r = response(chunks, endless, controller.signal);
            if (observed) observeReplyAsRead(r, format, () => {});
            const result = await consume(r, reads, ending, () => controller.abort(new Error('aborted')));
            controller.abort();
            return result;
          };
          const bare = await run(false);
          const observed = await run(true);
          expect(observed.bytes).toEqual(bare.bytes);
          expect(observed.settled).toBe(true);
          expect(String(observed.thrown)).toBe(String(bare.thrown));
        },
      ),
      { numRuns: 200 },
    );
  });
});
