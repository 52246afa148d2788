// Properties of the implicit conversation log (docs/behaviour.md §8): a
// conversation that only ever grows by the model's replies and new input is
// never reported, and one drop, duplicate, swap or rewrite inside what the
// model was already sent is always reported, with its kind.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/index';
import { implicitHarness } from '../support/implicit-harness';

const RUNS = { numRuns: 300 };

/** One turn of an agent loop: the new input, the model's reply, and tool results when the reply called tools. */
interface Turn {
  input: Message[];
  reply: Message;
  results: Message[];
}

/** Every message text carries its own position, so no two messages of a conversation are alike by accident. */
const turnArb = (index: number) =>
  fc
    .record({ text: fc.string({ maxLength: 30 }), calls: fc.integer({ min: 0, max: 2 }), system: fc.boolean() })
    .map(({ text, calls, system }): Turn => {
      const ids = Array.from({ length: calls }, (_, c) => `call_${index}_${c}`);
      return {
        input: [{ role: 'user', content: `q${index} ${text}` }],
        reply:
          calls === 0
            ? { role: 'assistant', content: `a${index} ${text}` }
            : {
                role: 'assistant',
                content: system ? null : '',
                toolCalls: ids.map((id) => ({ id, name: 'lookup', arguments: `{"q":${index}}` })),
              },
        results: ids.map((id) => ({ role: 'tool', content: `r${id} ${text}`, toolCallId: id })),
      };
    });

const conversationArb = fc.integer({ min: 2, max: 6 }).chain((length) => fc.tuple(...Array.from({ length }, (_, i) => turnArb(i))));

/**
 * Plays the turns as a correct loop would: each request is the previous one,
 * the model's reply to it, the tool results, then the next input. The system
 * prompt is re-derived per request (its text changes; it is exempt).
 * Returns what was reported and the conversation as the model has seen it.
 */
function play(turns: readonly Turn[], h = implicitHarness()) {
  let history: Message[] = [];
  const reported = [];
  for (const [i, turn] of turns.entries()) {
    const request: Message[] = [{ role: 'system', content: `prompt, request ${i}` }, ...history.slice(1), ...turn.input];
    reported.push(h.turn(request, turn.reply).violation);
    history = [...request, turn.reply, ...turn.results];
  }
  return { h, reported, history };
}

describe('implicit log properties', () => {
  it('any correct growth sequence is silent', () => {
    fc.assert(
      fc.property(conversationArb, (turns) => {
        const { reported, h, history } = play(turns);
        expect(reported.every((v) => v === undefined)).toBe(true);
        expect(h.send([...history, { role: 'user', content: 'one more' }]).violation).toBeUndefined();
      }),
      RUNS,
    );
  });

  // Positions from 2 on: the first non-system message is how a request is matched to its conversation, so a change
  // there starts another conversation (an edit-and-resend), and a change in the last message has nothing after it to
  // rejoin (a branch). Both are out of reach without a bound log (docs/behaviour.md §8.8).
  const mutationArb = conversationArb.chain((turns) => {
    const { history } = play(turns);
    // What the model has been sent and has answered: the last turn's tool results are new to it.
    const known = history.length - turns.at(-1)!.results.length;
    const last = known - 2; // the last position with a known message after it
    return fc.record({
      turns: fc.constant(turns),
      at: fc.integer({ min: 2, max: last }),
      kind: fc.constantFrom('drop', 'duplicate', 'swap', 'rewrite' as const),
    });
  });

  it('any single drop, duplicate, swap or rewrite inside a continued conversation is reported with its kind', () => {
    fc.assert(
      fc.property(mutationArb, ({ turns, at, kind }) => {
        const { h, history } = play(turns);
        const request = [...history, { role: 'user', content: 'next question' } as Message];
        const expected = mutate(request, at, kind);
        const violation = h.send(expected.request).violation;
        expect(violation?.kind, `${kind} at ${at}`).toBe(expected.kind);
      }),
      RUNS,
    );
  });
});

/**
 * Plays the turns as a correct loop that asks for several choices (`n` > 1)
 * would: each reply comes with `alternatives[i]` sibling choices, and the app
 * continues with choice `picks[i]` (0 is the reply with its tool results,
 * any other a plain-text sibling).
 */
function playChoices(turns: readonly Turn[], alternatives: readonly number[], picks: readonly number[], h = implicitHarness()) {
  let history: Message[] = [];
  const reported = [];
  for (const [i, turn] of turns.entries()) {
    const request: Message[] = [{ role: 'system', content: `prompt, request ${i}` }, ...history.slice(1), ...turn.input];
    const sent = h.send(request);
    reported.push(sent.violation);
    const siblings = Array.from({ length: alternatives[i]! }, (_, c): Message[] => [{ role: 'assistant', content: `alt ${i}.${c + 1}` }]);
    sent.pending?.reply([turn.reply], undefined, { siblings });
    const pick = picks[i]! % (siblings.length + 1);
    history = pick === 0 ? [...request, turn.reply, ...turn.results] : [...request, siblings[pick - 1]![0]!];
  }
  return { h, reported, history };
}

const choicesArb = conversationArb.chain((turns) =>
  fc.record({
    turns: fc.constant(turns),
    alternatives: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: turns.length, maxLength: turns.length }),
    picks: fc.array(fc.nat({ max: 3 }), { minLength: turns.length, maxLength: turns.length }),
  }),
);

describe('implicit log properties: several choices per request (n > 1)', () => {
  it('continuing with any one of the choices the model sent is silent', () => {
    fc.assert(
      fc.property(choicesArb, ({ turns, alternatives, picks }) => {
        const { reported, h, history } = playChoices(turns, alternatives, picks);
        expect(reported.every((v) => v === undefined)).toBe(true);
        expect(h.send([...history, { role: 'user', content: 'one more' }]).violation).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('any single drop, duplicate, swap or rewrite inside the continued choice is reported with its kind', () => {
    const arb = choicesArb.chain((played) => {
      const { history } = playChoices(played.turns, played.alternatives, played.picks);
      const lastTurn = played.turns.at(-1)!;
      const lastPick = played.picks.at(-1)! % (played.alternatives.at(-1)! + 1);
      const known = history.length - (lastPick === 0 ? lastTurn.results.length : 0);
      return fc.record({
        played: fc.constant(played),
        at: fc.integer({ min: 2, max: known - 2 }),
        kind: fc.constantFrom('drop', 'duplicate', 'swap', 'rewrite' as const),
      });
    });
    fc.assert(
      fc.property(arb, ({ played, at, kind }) => {
        const { h, history } = playChoices(played.turns, played.alternatives, played.picks);
        const expected = mutate([...history, { role: 'user', content: 'next question' }], at, kind);
        expect(h.send(expected.request).violation?.kind, `${kind} at ${at}`).toBe(expected.kind);
      }),
      RUNS,
    );
  });
});

/**
 * Plays the turns as a loop whose provider holds the conversation: from the
 * second turn on, where `held[i]`, the request continues the previous reply
 * by id (`previous_response_id`, a thread continued) with only what is new;
 * elsewhere it sends the whole history. Every reply carries an id.
 */
function playHeld(turns: readonly Turn[], held: readonly boolean[], h = implicitHarness()) {
  let history: Message[] = [];
  let previous: string | undefined;
  const reported = [];
  for (const [i, turn] of turns.entries()) {
    const request: Message[] = [{ role: 'system', content: `prompt, request ${i}` }, ...history.slice(1), ...turn.input];
    const id = `resp_${i}`;
    if (held[i] && previous !== undefined) {
      const added = [...history.slice(history.length - turns[i - 1]!.results.length), ...turn.input];
      const pending = h.logs.continueHeld({
        provider: 'test',
        model: 'm',
        messages: added,
        stateful: 'previous_response_id',
        continues: previous,
      });
      expect(pending, `turn ${i} continues ${previous}`).toBeDefined();
      pending?.reply([turn.reply], undefined, { id });
      reported.push(undefined);
    } else {
      const sent = h.send(request);
      reported.push(sent.violation);
      sent.pending?.reply([turn.reply], undefined, { id });
    }
    previous = id;
    history = [...request, turn.reply, ...turn.results];
  }
  return { h, reported, history };
}

const heldArb = conversationArb.chain((turns) =>
  fc.record({
    turns: fc.constant(turns),
    held: fc.array(fc.boolean(), { minLength: turns.length, maxLength: turns.length }),
  }),
);

describe('implicit log properties: turns the provider holds, then the whole history re-sent', () => {
  it('any mix of held and re-sent turns is silent, and so is a final full re-send', () => {
    fc.assert(
      fc.property(heldArb, ({ turns, held }) => {
        const { reported, h, history } = playHeld(turns, held);
        expect(reported.every((v) => v === undefined)).toBe(true);
        expect(h.send([...history, { role: 'user', content: 'one more' }]).violation).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('any single drop, duplicate, swap or rewrite in a full re-send is reported with its kind', () => {
    const arb = heldArb.chain((played) => {
      const { history } = playHeld(played.turns, played.held);
      const known = history.length - played.turns.at(-1)!.results.length;
      return fc.record({
        played: fc.constant(played),
        at: fc.integer({ min: 2, max: known - 2 }),
        kind: fc.constantFrom('drop', 'duplicate', 'swap', 'rewrite' as const),
      });
    });
    fc.assert(
      fc.property(arb, ({ played, at, kind }) => {
        const { h, history } = playHeld(played.turns, played.held);
        const expected = mutate([...history, { role: 'user', content: 'next question' }], at, kind);
        expect(h.send(expected.request).violation?.kind, `${kind} at ${at}`).toBe(expected.kind);
      }),
      RUNS,
    );
  });
});

function mutate(request: Message[], at: number, kind: 'drop' | 'duplicate' | 'swap' | 'rewrite') {
  const copy = request.slice();
  switch (kind) {
    case 'drop':
      copy.splice(at, 1);
      return { request: copy, kind: 'missing_message' };
    case 'duplicate':
      copy.splice(at, 0, request[at]!);
      return { request: copy, kind: 'extra_message' };
    case 'swap':
      [copy[at], copy[at + 1]] = [copy[at + 1]!, copy[at]!];
      return { request: copy, kind: 'order' };
    case 'rewrite':
      copy[at] = { ...request[at]!, content: `${String(request[at]!.content)} (edited)` };
      return { request: copy, kind: 'missing_message' };
  }
}

describe('implicit log: many conversations that open alike (docs/behaviour.md §8.2)', () => {
  /**
   * Conversations sharing an opening of `shared` messages, continued turn by
   * turn in any interleaving, with at most one of them faulted once (a message
   * it was already sent dropped): the correct ones are never reported,
   * whatever their number, and the fault is reported exactly once, as
   * missing_message, on its own conversation.
   */
  it('any interleaving of any number of alike conversations: silent, and one drop reported once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 3, max: 4 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.option(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { nil: undefined }),
        (count, shared, turns, seed, fault) => {
          const h = implicitHarness({ maxConversations: 1_000, captureContent: false });
          const opening: Message[] = [{ role: 'user', content: 'Hi' }];
          for (let i = 1; i < shared; i++)
            opening.push(i % 2 === 1 ? { role: 'assistant', content: 'Hello! How can I help?' } : { role: 'user', content: 'A question.' });
          if (opening.at(-1)!.role === 'assistant') opening.push({ role: 'user', content: 'A question.' });
          const histories = Array.from({ length: count }, () => opening.slice());
          const done = new Array<number>(count).fill(0);
          // The order of the requests: each conversation's turns in order, the conversations interleaved by `seed`.
          let state = seed;
          const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
          const faulted = fault === undefined ? undefined : { conversation: fault[0] % count, turn: 2 + (fault[1] % (turns - 2)) };
          const reported: Array<{ conversation: number; kind: string }> = [];
          for (let left = count * turns; left > 0; left--) {
            let c = Math.floor(random() * count);
            while (done[c] === turns) c = (c + 1) % count;
            const history = histories[c]!;
            let request = history;
            if (faulted?.conversation === c && faulted.turn === done[c]) {
              // Drop one message the model was sent and that later ones follow (not the first: the conversation's start).
              const at = 1 + (fault![2] % (history.length - 3));
              request = history.filter((_, i) => i !== at);
            }
            const sent = h.send(request);
            sent.pending?.reply([{ role: 'assistant', content: `Answer ${done[c]} to ${c}.` }]);
            if (sent.violation) reported.push({ conversation: c, kind: sent.violation.kind });
            history.push(
              { role: 'assistant', content: `Answer ${done[c]} to ${c}.` },
              { role: 'user', content: `More from ${c}, ${done[c]}.` },
            );
            done[c]!++;
          }
          expect(reported).toEqual(faulted === undefined ? [] : [{ conversation: faulted.conversation, kind: 'missing_message' }]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
