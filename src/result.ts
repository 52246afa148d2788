/**
 * The one result shape of the package: operations that can be refused return
 * `{ ok: true, ...value }` or `{ ok: false, ...failure }` instead of throwing,
 * so a bad input never throws into the caller's run.
 *
 * @example
 * const appended: Outcome<{ event: SessionEvent }, { error: InvalidEventError }> = log.append('user_message', { content: 'hi' });
 */
export type Outcome<Success extends object, Failure extends object> = ({ ok: true } & Success) | ({ ok: false } & Failure);

/** A refusal carrying `error`. */
export function refusal<E extends Error>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

/**
 * A description of any thrown value that never throws itself: a value with
 * no primitive form (`Object.create(null)`), a throwing `message` getter or a
 * revoked Proxy are described, not re-thrown.
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`;
  } catch {
    // fall through: a getter on the error threw
  }
  try {
    return String(thrown);
  } catch {
    return 'a thrown value that cannot be described';
  }
}
