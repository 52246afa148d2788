// Hostile input against every input surface: no throw (beyond the documented
// ones), no hang past a bound, no input mutated, and the log keeps its own
// copy of everything.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  InvalidEventError,
  SessionLog,
  appendMessage,
  check,
  setLogger,
  type EventData,
  type EventType,
  type Message,
  type SessionEvent,
} from '../src/index';
import {
  fromAgentItems,
  fromAiSdkPrompt,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAgentItems,
  toAiSdkPrompt,
  toAnthropic,
  toGemini,
  toOpenAIChat,
  toOpenAIResponses,
} from '../src/adapters';
import { fromOpenAIChatReusing } from '../src/integrations/openai/chat-adapter';
import { hostileList, hostileMessage, hostileValue, materialize, snapshot, withinBound, type Recipe } from './support/hostile';
import { exampleLog } from './support/transcripts';

const RUNS = { numRuns: 300 };

function violationKind(result: ReturnType<typeof check>): string {
  return result.ok ? 'ok' : result.violation.kind;
}

describe('check and append never throw, whatever is thrown at them', () => {
  const throwsNoPrimitive = {
    get role(): string {
      throw Object.create(null);
    },
  };
  const throwsThrowingError = {
    get role(): string {
      throw Object.defineProperty(new Error('x'), 'message', {
        get: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- hostile input throws what it likes
          throw 1;
        },
      });
    },
  };

  it.each([
    ['a value with no primitive form', throwsNoPrimitive],
    ['an error whose message getter throws', throwsThrowingError],
  ])('check reports %s as invalid_request', (_name, entry) => {
    const result = check(new SessionLog(), [entry as unknown as Message]);
    expect(result).toMatchObject({ ok: false, violation: { kind: 'invalid_request' } });
  });

  it.each([
    ['a value with no primitive form', () => Object.create(null)],
    ['the number 1', () => 1],
  ])('append refuses data whose getter throws %s', (_name, thrown) => {
    const log = new SessionLog();
    const data = Object.defineProperty({}, 'content', {
      enumerable: true,
      get: () => {
        throw thrown();
      },
    });
    const result = log.append('user_message', data);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toBeInstanceOf(InvalidEventError);
    expect(log.count).toBe(0);
  });
});

describe('fromEvents throws InvalidEventError and nothing else', () => {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  it.each([
    [
      'an event with a throwing getter',
      [
        Object.defineProperty({ seq: 0 }, 'type', {
          get: () => {
            throw Object.create(null);
          },
        }),
      ],
    ],
    ['a revoked Proxy as an event', [revoked]],
    ['a revoked Proxy as the list', revoked],
    [
      'a Proxy whose traps throw',
      new Proxy([], {
        get: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- hostile input throws what it likes
          throw 1;
        },
      }),
    ],
  ])('%s', (_name, events) => {
    expect(() => SessionLog.fromEvents(events as SessionEvent[])).toThrow(InvalidEventError);
  });
});

describe('bounded work for sparse and shared structures', () => {
  it('a request claiming 2**32 - 1 messages is invalid_request at once', () => {
    const request: Message[] = [];
    request.length = 2 ** 32 - 1;
    const result = withinBound(() => check(exampleLog(), request), 200);
    expect(result).toMatchObject({ ok: false, violation: { kind: 'invalid_request' } });
  });

  function dag(levels: number): unknown[] {
    let d: unknown[] = ['x'];
    for (let i = 0; i < levels; i++) d = [d, d];
    return d;
  }

  it('content shared 24 levels deep (2**24 leaves, 25 arrays) is checked in linear time', () => {
    const log = exampleLog();
    const request = log.deriveMessages();
    request[1] = { role: 'user', content: [{ type: 'blob', data: dag(24) }] };
    const result = withinBound(() => check(log, request), 500);
    expect(violationKind(result)).toBe('missing_message');
  });

  it('append refuses data that would expand to more values than it keeps, in linear time', () => {
    const log = new SessionLog();
    const result = withinBound(() => log.append('user_message', { content: [{ type: 'blob', data: dag(24) }] }), 500);
    expect(result).toMatchObject({ ok: false, error: { code: 'too_large' } });
  });

  it('a small shared sub-structure is accepted and folds like its JSON form', () => {
    const log = new SessionLog();
    const shared = { type: 'text', text: 'same' };
    expect(log.append('user_message', { content: [shared, shared] }).ok).toBe(true);
    expect(log.deriveMessages()[0]!.content).toEqual([shared, shared]);
  });
});

describe('the log holds its own copies: nothing changes it from outside', () => {
  it('an event time read back is a copy', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'x' }, new Date(1000));
    log.events()[0]!.time.setTime(0);
    expect(log.events()[0]!.time.getTime()).toBe(1000);
  });

  it("a fold message's createdAt is a copy", () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'x' }, new Date(1000));
    log.deriveMessages()[0]!.createdAt!.setTime(0);
    expect(log.deriveMessages()[0]!.createdAt!.getTime()).toBe(1000);
  });

  it('a Date given in data is stored as its ISO string, which no caller can change', () => {
    const log = new SessionLog();
    const when = new Date(1000);
    log.append('user_message', { content: 'x', metadata: { when } });
    when.setTime(0);
    expect(log.events()[0]!.data.metadata).toEqual({ when: '1970-01-01T00:00:01.000Z' });
  });

  it('a JSON round trip folds the same, Dates in content included', () => {
    const log = new SessionLog();
    log.append('user_message', { content: [{ type: 'event', at: new Date(5) }] });
    const restored = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)) as SessionEvent[]);
    expect(check(restored, log.deriveMessages())).toEqual({ ok: true });
    expect(check(log, restored.deriveMessages())).toEqual({ ok: true });
  });
});

describe('Dates, sparse arrays and throwing getters elsewhere', () => {
  it('a message with a Date in its content, re-sent as it was appended, passes (the log keeps its ISO string)', () => {
    const message: Message = { role: 'user', content: [{ type: 'event', at: new Date(5) }] };
    const log = new SessionLog();
    expect(appendMessage(log, message).ok).toBe(true);
    expect(check(log, [message])).toEqual({ ok: true });
    expect(check(log, [{ ...message, content: [{ type: 'event', at: new Date(6) }] }])).toMatchObject({
      ok: false,
    });
  });

  it('appendMessage refuses a message whose createdAt getter throws, and the log is unchanged', () => {
    const log = new SessionLog();
    const message = Object.defineProperty({ role: 'user', content: 'hi' }, 'createdAt', {
      get: () => {
        throw Object.create(null);
      },
    }) as Message;
    const result = appendMessage(log, message);
    expect(result.ok).toBe(false);
    expect(log.count).toBe(0);
  });

  it('SessionLog.seed refuses an array claiming 2**32 - 1 slots at once, and skips holes and unreadable entries with one warning', () => {
    const sparse: Message[] = [];
    sparse.length = 2 ** 32 - 1;
    const started = Date.now();
    expect(() => SessionLog.seed(sparse)).toThrow(RangeError);
    expect(() => SessionLog.seed('nope' as unknown as Message[])).toThrow(TypeError);
    expect(Date.now() - started).toBeLessThan(1_000);
    const holes: Message[] = [{ role: 'user', content: 'a' }];
    holes[3] = { role: 'assistant', content: 'b' };
    Object.defineProperty(holes, 2, {
      get: () => {
        throw new Error('unreadable');
      },
    });
    const warnings: string[] = [];
    setLogger({ warn: (message) => warnings.push(message) });
    try {
      expect(
        SessionLog.seed(holes)
          .deriveMessages()
          .map((m) => m.content),
      ).toEqual(['a', 'b']);
    } finally {
      setLogger(null);
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/skipped 2 message/);
  });
});

describe('every input surface, with hostile values (properties)', () => {
  const eventType = fc.oneof(
    fc.constantFrom(...EVENT_TYPES).map((plain): Recipe => ({ plain })),
    hostileValue,
  );
  const build =
    (fn: (...values: unknown[]) => void) =>
    (...recipes: unknown[]) =>
      fn(...recipes.map((r) => materialize(r as Recipe)));

  it('append: never throws, bounded, input untouched; a refusal leaves the log as it was', () => {
    fc.assert(
      fc.property(
        eventType,
        hostileValue,
        fc.oneof(fc.constant<Recipe>({ plain: undefined }), hostileValue),
        build((type, data, time) => {
          const log = exampleLog();
          const before = [snapshot(data), snapshot(time)];
          const count = log.count;
          const result = withinBound(() => log.append(type as EventType, data as EventData, time as Date));
          expect(snapshot(data)).toEqual(before[0]);
          expect(snapshot(time)).toEqual(before[1]);
          if (!result.ok) {
            expect(result.error).toBeInstanceOf(InvalidEventError);
            expect(log.count).toBe(count);
          }
          expect(() => JSON.stringify(log)).not.toThrow();
        }),
      ),
      RUNS,
    );
  });

  it('fromEvents: only InvalidEventError, bounded, input untouched', () => {
    const event: fc.Arbitrary<Recipe> = fc.oneof(
      hostileValue,
      fc
        .record({
          seq: fc.oneof(fc.constant<Recipe>({ plain: 0 }), hostileValue),
          type: eventType,
          time: fc.oneof(fc.constant<Recipe>({ plain: '2020-01-01T00:00:00Z' }), hostileValue),
          data: hostileValue,
        })
        .map((object): Recipe => ({ object })),
    );
    const events: fc.Arbitrary<Recipe> = fc.oneof(
      fc.array(event, { maxLength: 3 }).map((array): Recipe => ({ array })),
      hostileValue,
    );
    fc.assert(
      fc.property(
        events,
        build((events) => {
          const before = snapshot(events);
          try {
            withinBound(() => SessionLog.fromEvents(events as SessionEvent[]));
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidEventError);
          }
          expect(snapshot(events)).toEqual(before);
        }),
      ),
      RUNS,
    );
  });

  it('check: never throws, bounded, input untouched', () => {
    fc.assert(
      fc.property(
        hostileList,
        build((request) => {
          const before = snapshot(request);
          const result = withinBound(() => check(exampleLog(), request as Message[]));
          expect(typeof result.ok).toBe('boolean');
          expect(snapshot(request)).toEqual(before);
        }),
      ),
      RUNS,
    );
  });

  it('appendMessage: never throws, bounded, input untouched; a refusal leaves the log as it was', () => {
    fc.assert(
      fc.property(
        hostileMessage,
        build((message) => {
          const log = exampleLog();
          const [count, before] = [log.count, snapshot(message)];
          const result = withinBound(() => appendMessage(log, message as Message));
          expect(log.count).toBe(result.ok ? count + 1 : count);
          expect(snapshot(message)).toEqual(before);
        }),
      ),
      RUNS,
    );
  });

  it('SessionLog.seed: throws only a TypeError or RangeError, bounded, input untouched', () => {
    setLogger({ warn: () => {} });
    try {
      fc.assert(
        fc.property(
          hostileList,
          build((messages) => {
            const before = snapshot(messages);
            try {
              withinBound(() => SessionLog.seed(messages as Message[]));
            } catch (error) {
              expect(error instanceof TypeError || error instanceof RangeError).toBe(true);
            }
            expect(snapshot(messages)).toEqual(before);
          }),
        ),
        RUNS,
      );
    } finally {
      setLogger(null);
    }
  });

  const readers: Array<[string, (input: unknown, extra: unknown) => unknown]> = [
    ['fromOpenAIChat', (input) => fromOpenAIChat(input as unknown[])],
    // Read twice: the second reading reuses what the first remembered of each entry.
    ['fromOpenAIChatReusing', (input) => (fromOpenAIChatReusing(input as unknown[]), fromOpenAIChatReusing(input as unknown[]))],
    ['fromOpenAIResponses', (input, extra) => fromOpenAIResponses({ input, instructions: extra })],
    ['fromAnthropic', (input, extra) => fromAnthropic({ messages: input as unknown[], system: extra })],
    ['fromGemini', (input, extra) => fromGemini({ contents: input as unknown[], systemInstruction: extra })],
    ['fromAiSdkPrompt', (input) => fromAiSdkPrompt(input as unknown[])],
    ['fromAgentItems', (input) => fromAgentItems(input as unknown[])],
  ];

  it.each(readers)('%s: never throws, bounded, input untouched', (_name, read) => {
    fc.assert(
      fc.property(
        hostileList,
        hostileValue,
        build((input, extra) => {
          const before = [snapshot(input), snapshot(extra)];
          withinBound(() => read(input, extra));
          expect([snapshot(input), snapshot(extra)]).toEqual(before);
        }),
      ),
      RUNS,
    );
  });

  const builders: Array<[string, (messages: Message[]) => unknown]> = [
    ['toOpenAIChat', toOpenAIChat],
    ['toOpenAIResponses', toOpenAIResponses],
    ['toAnthropic', toAnthropic],
    ['toGemini', toGemini],
    ['toAiSdkPrompt', toAiSdkPrompt],
    ['toAgentItems', toAgentItems],
  ];

  it.each(builders)('%s: throws only a TypeError, bounded, input untouched', (_name, adapter) => {
    fc.assert(
      fc.property(
        fc.array(hostileMessage, { maxLength: 4 }).map((array): Recipe => ({ array })),
        build((messages) => {
          const before = snapshot(messages);
          try {
            withinBound(() => adapter(messages as Message[]));
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
          }
          expect(snapshot(messages)).toEqual(before);
        }),
      ),
      RUNS,
    );
  });
});
