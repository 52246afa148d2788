// Deep copy that admits only what survives a JSON round trip unchanged:
// strings, finite numbers, booleans, null, Dates, arrays and plain objects.
// Object keys holding `undefined` are dropped (JSON drops them too).

export type CloneResult = { ok: true; value: unknown } | { ok: false; path: string; message: string };

export function cloneJsonSafe(value: unknown, path: string): CloneResult {
  const ancestors = new Set<object>();
  try {
    return { ok: true, value: cloneValue(value, path, ancestors) };
  } catch (error) {
    if (error instanceof Unserializable) return { ok: false, path: error.path, message: error.message };
    // Stack exhaustion on absurd nesting, a throwing getter or a revoked proxy.
    return { ok: false, path, message: `data cannot be read: ${(error as Error)?.message ?? String(error)}` };
  }
}

class Unserializable extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path} is ${what}, which cannot be serialized`);
  }
}

function cloneValue(value: unknown, path: string, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new Unserializable(path, String(value));
      return value;
    case 'undefined':
      throw new Unserializable(path, 'undefined');
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new Unserializable(path, `a ${typeof value}`);
  }
  if (value === null) return null;
  const obj = value as object;
  if (obj instanceof Date) {
    if (Number.isNaN(obj.getTime())) throw new Unserializable(path, 'an invalid Date');
    return new Date(obj.getTime());
  }
  if (ancestors.has(obj)) throw new Unserializable(path, 'a reference cycle');
  ancestors.add(obj);
  let out: unknown;
  if (Array.isArray(obj)) {
    const copy: unknown[] = new Array<unknown>(obj.length);
    for (let i = 0; i < obj.length; i++) copy[i] = cloneValue(obj[i], `${path}[${i}]`, ancestors);
    out = copy;
  } else {
    const proto = Object.getPrototypeOf(obj) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const name = (obj as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
      throw new Unserializable(path, `an instance of ${name}`);
    }
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      const item = (obj as Record<string, unknown>)[key];
      if (item === undefined) continue;
      // defineProperty, so an own "__proto__" key stays data and never becomes the prototype.
      Object.defineProperty(copy, key, {
        value: cloneValue(item, `${path}.${key}`, ancestors),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    out = copy;
  }
  ancestors.delete(obj);
  return out;
}
