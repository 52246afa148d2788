// The call a tool result answers: the latest call with the result's id made
// by a message before it. This is the one place that decides it: the log's
// fold (naming results, finding the first orphan), the implicit log's tool
// pairing and every adapter that names a result after its call look calls
// up here. (Gemini's results may carry no id at all; which call such a
// result answers is decided by name in gemini/adapter.ts, a rule of that
// provider's own.)

/** Messages looked at behind a tool result before a table of every earlier call is built. */
const NEARBY = 8;

/**
 * The calls made by a list of messages, looked up by id. Agents put a call's
 * result right after the assistant message that made it, so the few
 * messages before the result are looked at first; only a result whose call
 * is further back pays for a table of every call before those, built once
 * and extended as later results need it. Checked on every request, this
 * keeps the usual case free of a map of all call ids.
 *
 * `callsOf` gives the calls a message makes (undefined: none); a call is
 * found by `id` when `counts` accepts it (all calls with an id, by default).
 * The list may grow between look-ups (the fold is appended to in place).
 */
export class EarlierCalls<C extends { readonly id?: unknown }> {
  readonly #messages: ArrayLike<unknown>;
  readonly #callsOf: (message: unknown) => readonly (C | null | undefined)[] | undefined;
  readonly #counts: (call: C) => boolean;
  /** The latest counted call of each id among messages [0, recorded). */
  #table: Map<unknown, C> | undefined;
  #recorded = 0;

  constructor(
    messages: ArrayLike<unknown>,
    callsOf: (message: unknown) => readonly (C | null | undefined)[] | undefined,
    counts: (call: C) => boolean = () => true,
  ) {
    this.#messages = messages;
    this.#callsOf = callsOf;
    this.#counts = counts;
  }

  /** The call a result with `id` at position `before` answers: the latest counted call with that id among the messages before it. */
  answered(id: unknown, before: number): C | undefined {
    const stop = Math.max(0, before - NEARBY);
    for (let j = before - 1; j >= stop; j--) {
      const calls = this.#callsOf(this.#messages[j]);
      if (calls === undefined) continue;
      for (let k = calls.length - 1; k >= 0; k--) {
        const call = calls[k];
        if (call != null && call.id === id && this.#counts(call)) return call;
      }
    }
    if (stop === 0) return undefined;
    // The table holds messages before `stop` only: a look-up further back than the last starts it again.
    if (this.#recorded > stop) this.#table = undefined;
    if (this.#table === undefined) {
      this.#table = new Map();
      this.#recorded = 0;
    }
    for (; this.#recorded < stop; this.#recorded++) {
      const calls = this.#callsOf(this.#messages[this.#recorded]);
      if (calls === undefined) continue;
      for (const call of calls) if (call != null && call.id !== undefined && this.#counts(call)) this.#table.set(call.id, call);
    }
    return this.#table.get(id);
  }
}
