// Heap snapshots of the test process, to look for text the package must not keep.

import { getHeapSnapshot, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A heap snapshot of this process (taking it runs a full garbage collection
 * first). Read through the stream's events: on Node 22.15, `for await` over
 * this stream never ends.
 */
export function heapSnapshot(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    getHeapSnapshot()
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

/** How often `middle` stands between `before` and `after`, found without building the joined string (which would itself be in the heap). */
export function occurrencesBetween(haystack: Buffer, before: string, middle: string, after: string): number {
  let count = 0;
  for (let at = haystack.indexOf(middle); at >= 0; at = haystack.indexOf(middle, at + 1)) {
    const head = haystack.subarray(at - before.length, at).toString();
    const tail = haystack.subarray(at + middle.length, at + middle.length + after.length).toString();
    if (head === before && tail === after) count++;
  }
  return count;
}

let collect: (() => void) | undefined;

/** A full garbage collection, with no flag needed on the command line. */
function collectGarbage(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/** What `build`'s result holds on the heap: heap used after a full collection, with and without it. */
export function retainedBytes<T>(build: () => T): { value: T; bytes: number } {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const value = build();
  collectGarbage();
  return { value, bytes: process.memoryUsage().heapUsed - before };
}
