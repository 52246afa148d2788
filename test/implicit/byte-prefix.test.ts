// The byte-prefix engine: the hash of a body's ranges, the record a
// conversation keeps of its bytes, and the lookup of the conversation whose
// bytes a request starts with (src/request-path/implicit/bytes).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { byteHasher, loadByteHasher, type ByteHasher, type PrefixStream } from '../../src/request-path/implicit/bytes/byte-hash';
import { bodyLayout, elementsFrom } from '../../src/request-path/implicit/bytes/body-layout';
import {
  appendSpans,
  BOUNDARY_DIGESTS,
  bytesSeen,
  MARK_EVERY,
  newByteRecord,
  type ByteRecord,
} from '../../src/request-path/implicit/bytes/byte-record';
import { PrefixIndex, restream } from '../../src/request-path/implicit/bytes/prefix-index';

let hasher: ByteHasher;
beforeAll(async () => {
  hasher = (await loadByteHasher())!;
});

const RUNS = { numRuns: 300 };
const text = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', '}', ',', '{', ']', ' ', 'é', '日', '😀') });
const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: text });
const messages = fc.array(message, { minLength: 1, maxLength: 10 });
const bodyOf = (list: readonly unknown[]) => JSON.stringify({ model: 'm', messages: [{ role: 'system', content: 'be brief' }, ...list] });

/** A conversation kept the way the request path keeps one: its record, indexed under its latest boundary digests. */
function keep(index: PrefixIndex<ByteRecord>, body: string): ByteRecord {
  const layout = bodyLayout(body, 'messages')!;
  const record = newByteRecord(hasher.digest(body, layout.p0, layout.firstEnd));
  appendSpans(record, elementsFrom(body, layout)!, 0, layout.p0, hasher.stream(body, layout.p0), (start, end) =>
    hasher.digest(body, start, end),
  );
  for (const b of record.boundaries.slice(-BOUNDARY_DIGESTS)) index.add(record.key, b.length, b.digest, record);
  return record;
}

function find(index: PrefixIndex<ByteRecord>, body: string) {
  const layout = bodyLayout(body, 'messages')!;
  return index.longest(hasher, body, layout.p0, hasher.digest(body, layout.p0, layout.firstEnd), body.length);
}

describe('byte-hash', () => {
  it('the hasher is there once its module is compiled, the same one for every caller', () => {
    expect(byteHasher()).toBe(hasher);
  });

  it('a range hashed in pieces at element boundaries digests as the whole range', () => {
    fc.assert(
      fc.property(messages, (list) => {
        const body = bodyOf(list);
        const layout = bodyLayout(body, 'messages')!;
        const stream = hasher.stream(body, layout.p0);
        for (const element of elementsFrom(body, layout)!) {
          expect(stream.digestTo(element.end)).toBe(hasher.digest(body, layout.p0, element.end));
        }
      }),
      RUNS,
    );
  });

  it('a stream resumed at any element ends it is asked for digests as hashing each range at once', () => {
    fc.assert(
      fc.property(messages, fc.array(fc.boolean(), { maxLength: 12 }), (list, asks) => {
        const body = bodyOf(list);
        const layout = bodyLayout(body, 'messages')!;
        const ends = elementsFrom(body, layout)!.map((e) => e.end);
        const stream = hasher.stream(body, layout.p0);
        ends.forEach((end, i) => {
          if (asks[i] ?? i === ends.length - 1) expect(stream.digestTo(end)).toBe(hasher.digest(body, layout.p0, end));
        });
      }),
      RUNS,
    );
  });

  it('texts hash alike exactly when they are equal: ASCII, Latin-1, two-byte and astral, a wide character early or late', () => {
    const unit = fc.constantFrom('a', 'A', 'é', '\u00ff', '\u0100', 'Ł', 'A\u0001', '日', '😀', '\ud83d', '"', '\u0000');
    const range = fc.string({ unit, maxLength: 40 });
    fc.assert(
      fc.property(range, range, fc.string({ maxLength: 3 }), (a, b, before) => {
        const s = before + a + '|' + b;
        const da = hasher.digest(s, before.length, before.length + a.length);
        const db = hasher.digest(s, before.length + a.length + 1, s.length);
        if (a === b) expect(da).toBe(db);
        else expect(da).not.toBe(db);
      }),
      { numRuns: 2_000 },
    );
    // Narrow as UTF-8 against wide as UTF-16LE: the bytes of 'a\0' in one are those of 'a' in the other; the seeds keep them apart.
    expect(hasher.digest('a\u0000', 0, 2)).not.toBe(hasher.digest('a', 0, 1));
    expect(hasher.digest('\u0141', 0, 1)).not.toBe(hasher.digest('A', 0, 1));
  });

  it('equal text hashes alike wherever it sits, and a one-character change does not', () => {
    const a = 'x{"role":"user","content":"日本"}';
    const b = '{"role":"user","content":"日本"}yy';
    expect(hasher.digest(a, 1, a.length)).toBe(hasher.digest(b, 0, b.length - 2));
    expect(hasher.digest(a, 1, a.length)).not.toBe(hasher.digest(a.replace('日', '月'), 1, a.length));
  });
});

describe('byte-record', () => {
  /** A stream that digests a range as its end (the record's bookkeeping, not the hash, is under test), and the ends it was asked for. */
  function endsStream(): { stream: PrefixStream; asked: number[] } {
    const asked: number[] = [];
    let at = 0;
    const stream = {
      get end() {
        return at;
      },
      digestTo(end: number) {
        expect(end).toBeGreaterThanOrEqual(at);
        asked.push((at = end));
        return BigInt(end);
      },
    };
    return { stream, asked };
  }
  const spans = (ends: number[]) => ends.map((end) => ({ start: end - 5, end }));
  /** A block's digest as the positions it was asked for. */
  const blockOf = (start: number, end: number): bigint => BigInt(start) * 1_000_000n + BigInt(end);

  it('keeps every element end and the digests of the latest few boundaries, asking the stream only there', () => {
    const record = newByteRecord(1n);
    const first = endsStream();
    expect(appendSpans(record, spans([10, 20, 30]), 0, 0, first.stream, blockOf)).toBe(3);
    expect(first.asked).toEqual([10, 20, 30]);
    // Spans before `first` are not appended; positions are relative to p0.
    const second = endsStream();
    expect(appendSpans(record, spans([99, 42, 52, 62, 72]), 1, 2, second.stream, blockOf)).toBe(4);
    expect(second.asked).toEqual([42, 52, 62, 72]);
    expect(bytesSeen(record)).toBe(70);
    expect(Array.from(record.ends.subarray(0, record.count))).toEqual([10, 20, 30, 40, 50, 60, 70]);
    // The caller drops the oldest past BOUNDARY_DIGESTS (after unindexing them).
    expect(record.boundaries.map((b) => b.length)).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(record.boundaries.slice(-BOUNDARY_DIGESTS).map((b) => b.digest)).toEqual([42n, 52n, 62n, 72n].slice(-BOUNDARY_DIGESTS));
  });

  it('takes a mark for every block of MARK_EVERY elements, the boundaries in one front-to-back pass whatever the batches, and grows past its capacity', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }), (batches) => {
        const record = newByteRecord(1n);
        let end = 0;
        for (const size of batches) {
          const ends = Array.from({ length: size }, () => (end += 7));
          const { stream, asked } = endsStream();
          appendSpans(record, spans(ends), 0, 0, stream, blockOf);
          expect(asked).toEqual([...asked].sort((a, b) => a - b));
          record.boundaries.splice(0, Math.max(0, record.boundaries.length - BOUNDARY_DIGESTS));
        }
        expect(record.count).toBe(end / 7);
        expect(record.markCount).toBe(Math.floor(record.count / MARK_EVERY));
        // Mark k: the block from the end of element 16k - 1 (0 for the first) to the end of element 16k + 15.
        for (let k = 0; k < record.markCount; k++) expect(record.marks[k]).toBe(blockOf(7 * k * MARK_EVERY, 7 * (k + 1) * MARK_EVERY));
        expect(record.boundaries.map((b) => b.length)).toEqual(
          Array.from(record.ends.subarray(Math.max(0, record.count - BOUNDARY_DIGESTS), record.count)),
        );
      }),
      RUNS,
    );
  });
});

describe('prefix-index', () => {
  it('a request that carries a kept conversation and more is found to continue it, at its full length', () => {
    fc.assert(
      fc.property(messages, fc.array(message, { maxLength: 4 }), (kept, added) => {
        const index = new PrefixIndex<ByteRecord>();
        const record = keep(index, bodyOf(kept));
        const match = find(index, bodyOf([...kept, ...added]));
        expect(match?.value).toBe(record);
        expect(match?.length).toBe(bytesSeen(record));
      }),
      RUNS,
    );
  });

  it('a request whose bytes differ before the last few boundaries is not found; within them, at the boundary before the change', () => {
    fc.assert(
      fc.property(messages, fc.nat(), text, (kept, which, replacement) => {
        const changed = which % kept.length;
        fc.pre(kept[changed]!.content !== replacement);
        const index = new PrefixIndex<ByteRecord>();
        const record = keep(index, bodyOf(kept));
        const edited = kept.map((m, i) => (i === changed ? { ...m, content: replacement } : m));
        const match = find(index, bodyOf(edited));
        const kept0 = record.count - BOUNDARY_DIGESTS; // boundaries at ends[kept0..] are indexed
        if (changed === 0 || changed - 1 < kept0) expect(match).toBeUndefined();
        else {
          expect(match?.value).toBe(record);
          expect(match?.length).toBe(record.ends[changed - 1]);
        }
      }),
      RUNS,
    );
  });

  it('finds the right one of many conversations that start alike, hashing only at the request own boundaries', () => {
    const index = new PrefixIndex<ByteRecord>();
    const records: ByteRecord[] = [];
    const greeting = { role: 'user', content: 'Hello!' };
    for (let i = 0; i < 2_000; i++) {
      records.push(keep(index, bodyOf([greeting, { role: 'assistant', content: `Hi, user ${i}.`.padEnd(10 + (i % 700), '.') }])));
    }
    expect(index.keys).toBe(1);
    const body = bodyOf([
      greeting,
      { role: 'assistant', content: `Hi, user 1234.`.padEnd(10 + (1234 % 700), '.') },
      { role: 'user', content: 'and?' },
    ]);
    let digests = 0;
    const counting: ByteHasher = {
      digest: hasher.digest,
      stream: (s, start) => {
        const inner = hasher.stream(s, start);
        return {
          get end() {
            return inner.end;
          },
          digestTo: (end) => {
            digests++;
            return inner.digestTo(end);
          },
        };
      },
    };
    const layout = bodyLayout(body, 'messages')!;
    const match = index.longest(counting, body, layout.p0, hasher.digest(body, layout.p0, layout.firstEnd), body.length);
    expect(match?.value).toBe(records[1234]);
    // The request has three element boundaries: at most one digest at each, whatever the number kept.
    expect(digests).toBeLessThanOrEqual(3);
  });

  it('restream gives a stream at the match when a longer kept length was hashed past it', () => {
    const index = new PrefixIndex<string>();
    const body = bodyOf([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ]);
    const layout = bodyLayout(body, 'messages')!;
    const ends = elementsFrom(body, layout)!.map((e) => e.end - layout.p0);
    const key = hasher.digest(body, layout.p0, layout.firstEnd);
    index.add(key, ends[0]!, hasher.digest(body, layout.p0, layout.p0 + ends[0]!), 'short');
    index.add(key, ends[1]!, 0n, 'longer, other bytes');
    const match = index.longest(hasher, body, layout.p0, key, body.length)!;
    expect(match.value).toBe('short');
    expect(match.stream.end).toBe(layout.p0 + ends[1]!);
    const stream = restream(hasher, body, layout.p0, match);
    expect(stream.end).toBe(layout.p0 + ends[0]!);
    expect(stream.digestTo(layout.p0 + ends[2]!)).toBe(hasher.digest(body, layout.p0, layout.p0 + ends[2]!));
  });

  it('delete forgets only the value kept there, and an emptied key', () => {
    const index = new PrefixIndex<string>();
    index.add(7n, 10, 1n, 'a');
    index.delete(7n, 10, 1n, 'b');
    expect(index.keys).toBe(1);
    index.delete(7n, 10, 1n, 'a');
    expect(index.keys).toBe(0);
  });
});
