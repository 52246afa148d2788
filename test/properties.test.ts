import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLog, check, messagesMatch, type Message } from '../src/index';
import { fingerprintOf } from '../src/invariant/fingerprint';
import { anyLogArb, applyOp, balancedLogArb, logOpArb, messageArb, nonSystemMessageArb } from './support/arbitraries';
import { referenceFold, referenceOrphan } from './support/reference-fold';

const RUNS = { numRuns: 1000 };

function violationKind(log: SessionLog, request: readonly Message[]): string {
  const result = check(log, request);
  return result.ok ? 'ok' : result.violation.kind;
}

const nonSystemIndices = (messages: readonly Message[]) => messages.flatMap((m, i) => (m.role === 'system' ? [] : [i]));

describe('properties: the fold passes its own check', () => {
  it('for any balanced log, check(log, fold) passes', () => {
    fc.assert(
      fc.property(balancedLogArb, (log) => {
        expect(check(log, log.deriveMessages())).toEqual({ ok: true });
      }),
      RUNS,
    );
  });

  it('for any log at all, the fold reconstructs; it fails only on a real orphan, the first one', () => {
    fc.assert(
      fc.property(anyLogArb, (log) => {
        const fold = log.deriveMessages();
        const orphan = referenceOrphan(fold);
        const expected = orphan.found
          ? { ok: false, violation: { kind: 'orphaned_tool_result', toolCallId: orphan.toolCallId } }
          : { ok: true };
        expect(check(log, fold)).toEqual(expected);
      }),
      RUNS,
    );
  });
});

describe('properties: every single edit of a non-system message is caught with the expected kind', () => {
  const withFold = balancedLogArb.filter((log) => nonSystemIndices(log.deriveMessages()).length > 0);

  it('a dropped message is missing_message', () => {
    fc.assert(
      fc.property(withFold, fc.nat(), (log, pick) => {
        const fold = log.deriveMessages();
        const indices = nonSystemIndices(fold);
        const i = indices[pick % indices.length]!;
        expect(
          violationKind(
            log,
            fold.filter((_, j) => j !== i),
          ),
        ).toBe('missing_message');
      }),
      RUNS,
    );
  });

  it('an inserted message is extra_message', () => {
    fc.assert(
      fc.property(balancedLogArb, nonSystemMessageArb, fc.nat(), (log, inserted, pick) => {
        const fold = log.deriveMessages();
        const at = pick % (fold.length + 1);
        expect(violationKind(log, [...fold.slice(0, at), inserted, ...fold.slice(at)])).toBe('extra_message');
      }),
      RUNS,
    );
  });

  it('two swapped messages with different fingerprints are order', () => {
    const withPair = withFold.filter((log) => {
      const keys = new Set(nonSystemIndices(log.deriveMessages()).map((i) => fingerprintOf(log.deriveMessages()[i])));
      return keys.size > 1;
    });
    fc.assert(
      fc.property(withPair, fc.nat(), fc.nat(), (log, a, b) => {
        const fold = log.deriveMessages();
        const indices = nonSystemIndices(fold);
        const i = indices[a % indices.length]!;
        const candidates = indices.filter((j) => fingerprintOf(fold[j]) !== fingerprintOf(fold[i]));
        fc.pre(candidates.length > 0);
        const j = candidates[b % candidates.length]!;
        const swapped = fold.slice();
        [swapped[i], swapped[j]] = [swapped[j]!, swapped[i]!];
        expect(violationKind(log, swapped)).toBe('order');
      }),
      RUNS,
    );
  });

  it('rewritten content is missing_message', () => {
    fc.assert(
      fc.property(withFold, fc.nat(), fc.boolean(), (log, pick, asParts) => {
        const fold = log.deriveMessages();
        const indices = nonSystemIndices(fold);
        const i = indices[pick % indices.length]!;
        const text = `rewritten #${i}`;
        const rewritten = fold.slice();
        rewritten[i] = { ...fold[i]!, content: asParts ? [{ type: 'text', text }] : text };
        expect(violationKind(log, rewritten)).toBe('missing_message');
      }),
      RUNS,
    );
  });
});

describe('properties: the memoized fold', () => {
  it('always deep-equals a fresh fold across random interleavings of appends, replaces and reads', () => {
    fc.assert(
      fc.property(fc.array(logOpArb, { maxLength: 40 }), (ops) => {
        const log = new SessionLog();
        for (const op of ops) {
          applyOp(log, op);
          expect(log.deriveIndexed()).toEqual(referenceFold(log.events()));
        }
      }),
      RUNS,
    );
  });

  it('fromEvents(JSON round trip) folds identically', () => {
    fc.assert(
      fc.property(anyLogArb, (log) => {
        const restored = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)));
        expect(restored.deriveIndexed()).toEqual(log.deriveIndexed());
        expect(restored.count).toBe(log.count);
      }),
      RUNS,
    );
  });
});

describe('properties: equality and fingerprints agree', () => {
  /** The same message as another provider would send it: parts for strings, JSON strings for arguments. */
  function reencode(m: Message, useParts: boolean, stringArgs: boolean): Message {
    const content = useParts && typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const toolCalls = m.toolCalls?.map((c) => ({
      ...c,
      arguments: stringArgs && typeof c.arguments !== 'string' ? JSON.stringify(c.arguments) : c.arguments,
    }));
    return { ...m, content, ...(toolCalls ? { toolCalls } : {}) };
  }

  it('messagesMatch(a, b) holds exactly when the fingerprint keys are equal', () => {
    fc.assert(
      fc.property(messageArb, messageArb, (a, b) => {
        expect(messagesMatch(a, b)).toBe(fingerprintOf(a) === fingerprintOf(b));
      }),
      RUNS,
    );
  });

  /** Messages whose content is one of the ways of writing "nothing" (absent, null, "", [], one empty text part), in any role. */
  const emptyishArb: fc.Arbitrary<Message> = fc
    .record({
      role: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const),
      content: fc.constantFrom<unknown>(undefined, null, '', [], [{ type: 'text', text: '' }], 'x'),
      toolCalls: fc.option(fc.constantFrom([], [{ id: 'c1', name: 'f', arguments: '{}' }]), { nil: undefined }),
    })
    .map(({ role, content, toolCalls }) => {
      const m: Record<string, unknown> = { role };
      if (content !== undefined) m.content = content;
      if (toolCalls !== undefined) m.toolCalls = toolCalls;
      return m as unknown as Message;
    });

  it('messagesMatch agrees with fingerprint equality on empty-content variants (docs/behaviour.md §4.1 rule 4)', () => {
    fc.assert(
      fc.property(emptyishArb, emptyishArb, (a, b) => {
        const equal = fingerprintOf(a) === fingerprintOf(b);
        expect(messagesMatch(a, b)).toBe(equal);
        expect(messagesMatch(b, a)).toBe(equal);
        expect(fingerprintOf(a, { ignoreToolResultName: true }) === fingerprintOf(b, { ignoreToolResultName: true })).toBe(equal);
      }),
      RUNS,
    );
  });

  it('a provider re-encoding of a message matches it and keeps its fingerprint', () => {
    fc.assert(
      fc.property(messageArb, fc.boolean(), fc.boolean(), (m, useParts, stringArgs) => {
        const other = reencode(m, useParts, stringArgs);
        expect(messagesMatch(other, m)).toBe(true);
        expect(fingerprintOf(other)).toBe(fingerprintOf(m));
      }),
      RUNS,
    );
  });
});
