// The packed sketches a conversation keeps give back, in order, exactly the
// sketches put in: whatever their roles, previews, tool call ids and names,
// however many distinct shapes there are.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageSketch } from '../../src/invariant/sketch';
import { PackedSketches } from '../../src/request-path/implicit/packed-sketches';

const sketchArb: fc.Arbitrary<MessageSketch> = fc.oneof(
  fc.constant<MessageSketch>({ role: 'system' }),
  fc.record({
    role: fc.constantFrom('user', 'assistant', 'tool', 'invalid', 'developer'),
    preview: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
    toolCalls: fc.integer({ min: 0, max: 300 }),
    toolCallId: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    name: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
  }),
);

describe('packed sketches', () => {
  it('give back the sketches put in, through appends and drops of the last', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(sketchArb, { maxLength: 20 }), fc.boolean()), { maxLength: 12 }), (steps) => {
        const packed = new PackedSketches();
        const model: MessageSketch[] = [];
        for (const [added, drop] of steps) {
          packed.append(added);
          model.push(...added);
          if (drop && model.length > 0) {
            packed.dropLast();
            model.pop();
          }
          expect(packed.length).toBe(model.length);
          expect(packed.toArray()).toEqual(model);
          const cut = model.length >> 1;
          expect(packed.toArray(cut)).toEqual(model.slice(0, cut));
        }
      }),
      { numRuns: 300 },
    );
  });
});
