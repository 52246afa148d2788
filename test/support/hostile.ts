// Hostile inputs for the never-throw, never-hang, never-mutate promises:
// throwing getters (throwing values with no primitive form), Proxies (revoked,
// or with throwing traps), sparse arrays claiming 2**32 - 1 slots, shared
// sub-structures that expand exponentially, cycles and Dates, mixed into
// ordinary JSON-like values and message shapes.

import fc from 'fast-check';
import { types } from 'node:util';

/** Values that are awkward to throw: no primitive form, a throwing `message` getter, a plain number. */
const thrownValues: Array<() => unknown> = [
  () => Object.create(null),
  () => 1,
  () =>
    Object.defineProperty(new Error('x'), 'message', {
      get: () => {
        throw Object.create(null);
      },
    }),
  () =>
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    ),
  () => Symbol('thrown'),
];

function throwingGetter(key: string, thrown: () => unknown): object {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get: () => {
      throw thrown();
    },
  });
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function trappingProxy(target: object): object {
  const fail = () => {
    throw Object.create(null);
  };
  return new Proxy(target, { get: fail, ownKeys: fail, getOwnPropertyDescriptor: fail, getPrototypeOf: fail, has: fail });
}

function sparse(): unknown[] {
  const array: unknown[] = [];
  array.length = 2 ** 32 - 1;
  return array;
}

/** `d = [d, d]`, `levels` times: `levels + 1` arrays that expand to 2**levels leaves. */
function dag(levels: number): unknown[] {
  let d: unknown[] = ['leaf'];
  for (let i = 0; i < levels; i++) d = [d, d];
  return d;
}

function cycle(): object {
  const o: Record<string, unknown> = { type: 'text', text: 'loop' };
  o.self = o;
  return o;
}

// The arbitraries produce recipes (plain, printable data) and the property
// materializes them: fast-check itself probes the values it generates, and a
// revoked Proxy or a throwing trap would break the test runner, not the code.

type Recipe =
  | { leaf: 'getter'; key: string; thrown: number }
  | { leaf: 'revoked' }
  | { leaf: 'trap-object' }
  | { leaf: 'trap-array' }
  | { leaf: 'sparse' }
  | { leaf: 'dag'; levels: number }
  | { leaf: 'cycle' }
  | { leaf: 'date'; ms: number }
  | { plain: unknown }
  | { array: Recipe[] }
  | { object: Record<string, Recipe> };

const leafRecipe: fc.Arbitrary<Recipe> = fc.oneof(
  fc.record({
    leaf: fc.constant('getter' as const),
    key: fc.constantFrom('role', 'content', 'type', 'text', 'message', 'seq', 'data', 'time', 'length', 'messages', 'input', 'system'),
    thrown: fc.nat({ max: thrownValues.length - 1 }),
  }),
  fc.constantFrom<Recipe>({ leaf: 'revoked' }, { leaf: 'trap-object' }, { leaf: 'trap-array' }, { leaf: 'sparse' }, { leaf: 'cycle' }),
  fc.integer({ min: 20, max: 26 }).map((levels): Recipe => ({ leaf: 'dag', levels })),
  fc.oneof(fc.integer({ min: -1e13, max: 1e13 }), fc.constant(Number.NaN)).map((ms): Recipe => ({ leaf: 'date', ms })),
);

const plainRecipe: fc.Arbitrary<Recipe> = fc
  .oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined))
  .map((plain): Recipe => ({ plain }));

const valueRecipe: fc.Arbitrary<Recipe> = fc.letrec<{ value: Recipe }>((tie) => ({
  value: fc.oneof(
    { weight: 3, arbitrary: plainRecipe },
    { weight: 3, arbitrary: leafRecipe },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }).map((array): Recipe => ({ array })) },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(fc.constantFrom('role', 'content', 'text', 'type', 'toolCalls', 'id'), tie('value'), { maxKeys: 3 })
        .map((object): Recipe => ({ object })),
    },
  ),
})).value;

const messageRecipe: fc.Arbitrary<Recipe> = fc.oneof(
  leafRecipe,
  fc
    .record(
      {
        role: fc.oneof(
          fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'function').map((plain): Recipe => ({ plain })),
          valueRecipe,
        ),
        content: valueRecipe,
        toolCalls: valueRecipe,
        tool_calls: valueRecipe,
        toolCallId: valueRecipe,
        tool_call_id: valueRecipe,
        name: valueRecipe,
        type: fc.oneof(
          fc.constantFrom('message', 'function_call', 'function_call_output', 'item_reference').map((plain): Recipe => ({ plain })),
          valueRecipe,
        ),
      },
      { requiredKeys: ['role'] },
    )
    .map((object): Recipe => ({ object })),
);

const listRecipe: fc.Arbitrary<Recipe> = fc.oneof(
  { weight: 4, arbitrary: fc.array(messageRecipe, { maxLength: 4 }).map((array): Recipe => ({ array })) },
  { weight: 1, arbitrary: leafRecipe },
);

/** Builds the hostile value a recipe describes, fresh. */
export function materialize(recipe: Recipe): unknown {
  if ('plain' in recipe) return recipe.plain;
  if ('array' in recipe) return recipe.array.map(materialize);
  if ('object' in recipe) return Object.fromEntries(Object.entries(recipe.object).map(([k, v]) => [k, materialize(v)]));
  switch (recipe.leaf) {
    case 'getter':
      return throwingGetter(recipe.key, thrownValues[recipe.thrown]!);
    case 'revoked':
      return revokedProxy();
    case 'trap-object':
      return trappingProxy({ role: 'user', content: 'x' });
    case 'trap-array':
      return trappingProxy([]);
    case 'sparse':
      return sparse();
    case 'dag':
      return dag(recipe.levels);
    case 'cycle':
      return cycle();
    case 'date':
      return new Date(recipe.ms);
  }
}

/** A JSON-like value with hostile leaves mixed in (as a recipe: `materialize` it inside the property). */
export const hostileValue = valueRecipe;
/** Something shaped like a message or a provider entry, with any field hostile. */
export const hostileMessage = messageRecipe;
/** A list of message-like entries: hostile entries, a hostile list, or both. */
export const hostileList = listRecipe;
export type { Recipe };

/**
 * A structural record of `value` read without invoking getters or Proxy
 * traps, to tell whether anything reachable from it was written to.
 */
export function snapshot(value: unknown): unknown {
  const seen = new Map<object, number>();
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v !== 'object' || v === null) return typeof v === 'symbol' ? String(v) : v;
    if (types.isProxy(v)) return '[proxy]';
    if (v instanceof Date) return `[date ${v.getTime()}]`;
    const known = seen.get(v);
    if (known !== undefined) return `[ref ${known}]`;
    seen.set(v, seen.size);
    if (depth > 30) return '[deep]';
    const keys = Reflect.ownKeys(v).filter((k) => k !== 'length' || !Array.isArray(v));
    const out: Record<string, unknown> = { '[length]': Array.isArray(v) ? v.length : undefined };
    for (const key of keys.slice(0, 50)) {
      const descriptor = Object.getOwnPropertyDescriptor(v, key)!;
      out[String(key)] = 'value' in descriptor ? walk(descriptor.value, depth + 1) : '[accessor]';
    }
    return out;
  };
  return walk(value, 0);
}

/** Runs `fn`, failing when it throws or takes longer than `boundMs`. */
export function withinBound<T>(fn: () => T, boundMs = 2_000): T {
  const start = performance.now();
  const result = fn();
  const elapsed = performance.now() - start;
  if (elapsed > boundMs) throw new Error(`took ${elapsed.toFixed(0)} ms, over the ${boundMs} ms bound`);
  return result;
}
