// A response body the caller reads through, so the package sees each chunk
// as the caller takes it instead of reading a tee'd copy of its own. A tee's
// cancel waits for both branches, so a copy the package reads to the end
// kept a cancelled model stream (and its connection) open for as long as
// the model kept streaming. Here the caller's pace is the only pace: a chunk
// is read from the source when the caller asks for one, and the caller's
// cancel is the source's cancel, at once.

/** What the package does with the body the caller reads. Its calls never throw into the caller. */
export interface BodyWatcher {
  /**
   * A chunk, before the caller gets it. A promise returned (the check of a
   * reply this chunk completed, which a shared store reports, bounded) is
   * waited for before the caller gets the chunk; it never rejects.
   */
  chunk(bytes: Uint8Array): void | Promise<void>;
  /**
   * The body ended (`end`), the caller cancelled it (`cancel`) or it failed
   * (`error`); called once. A promise returned for `end` or `cancel` (a
   * check a shared store reports, bounded) is waited for before the caller
   * sees the end, or its cancel resolves; it never rejects.
   */
  settle(how: 'end' | 'cancel' | 'error'): void | Promise<void>;
}

/**
 * A stream of `source()`'s chunks, read from it only when the caller reads
 * (high-water mark 0: nothing is read ahead), with the caller's cancel passed
 * on with its reason. The source is taken (and locked) at the first read or
 * cancel, so until then the response's own `text()`, `json()` or `clone()`
 * still work. A byte source gives a byte stream (BYOB readers work as
 * before); any other passes its chunks on as they are.
 */
export function passThroughBody(
  source: () => ReadableStream<Uint8Array>,
  bytes: boolean,
  watcher: BodyWatcher,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let settled = false;
  const settle = (how: 'end' | 'cancel' | 'error'): void | Promise<void> => {
    if (settled) return;
    settled = true;
    return quietly(() => watcher.settle(how));
  };
  const pull = async (controller: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController): Promise<void> => {
    reader ??= source().getReader();
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
    try {
      result = await reader.read();
    } catch (error) {
      void settle('error'); // a failed body: nothing to wait for
      throw error; // the caller's stream fails with the source's own error
    }
    if (settled) return; // cancelled while this read was pending
    if (result.done) {
      // Before the caller sees the end, so a violation lands on the request's span.
      const recorded = settle('end');
      if (recorded !== undefined) await recorded;
      controller.close();
      if ('byobRequest' in controller) controller.byobRequest?.respond(0);
      return;
    }
    // Watched first: enqueueing into a byte stream transfers (detaches) the chunk's buffer.
    const recorded = quietly(() => watcher.chunk(result.value));
    if (recorded !== undefined) {
      await recorded;
      if (settled) return; // cancelled while the record was awaited
    }
    controller.enqueue(result.value);
  };
  const cancel = async (reason: unknown): Promise<void> => {
    const recorded = settle('cancel');
    // The source is cancelled at once; the caller's cancel resolves once a reply complete by then is handed over too.
    const cancelled = reader ? reader.cancel(reason) : source().cancel(reason);
    if (recorded !== undefined) await recorded;
    return cancelled;
  };
  return bytes
    ? new ReadableStream({ type: 'bytes', pull, cancel }, { highWaterMark: 0 })
    : new ReadableStream<Uint8Array>({ pull, cancel }, { highWaterMark: 0 });
}

function quietly(fn: () => void | Promise<void>): void | Promise<void> {
  try {
    return fn();
  } catch {
    // the package's own failure: the caller's stream goes on
  }
}
