// Tool arguments nested 100,000 levels deep are valid JSON and valid
// requests: they are checked like any other, in the bound check and the
// implicit log, for every provider shape, and never reported as the app's
// violation because the package's own walk ran out of stack.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionLog, VIOLATION_METRIC, check, setLogger, verify, type Message } from '../src/index';
import { fromAnthropic } from '../src/adapters';
import { INTERNAL_ERROR_METRIC } from '../src/telemetry/semconv';
import { resetWarnings } from '../src/warnings';
import { implicitHarness } from './support/implicit-harness';
import { registerOtel, type OtelHarness } from './support/otel';

const DEPTH = 100_000;

/** `{"a":[{"a":[ ... 1 ... ]}]}`, `DEPTH` levels, as JSON text and as the value it parses to (built without recursion). */
function deepArguments(leaf = 1): { text: string; value: unknown } {
  let value: unknown = leaf;
  for (let i = 0; i < DEPTH; i++) value = i % 2 ? [value] : { a: value };
  const open: string[] = [];
  const close: string[] = [];
  for (let i = DEPTH - 1; i >= 0; i--) {
    open.push(i % 2 ? '[' : '{"a":');
    close.push(i % 2 ? ']' : '}');
  }
  return { text: open.join('') + String(leaf) + close.reverse().join(''), value };
}

const user = (content: string): Message => ({ role: 'user', content });
const call = (args: unknown): Message => ({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'deep', arguments: args }] });
const result: Message = { role: 'tool', content: 'done', toolCallId: 'c1', name: 'deep' };

describe('arguments nested 100,000 levels deep', () => {
  const deep = deepArguments();

  it('check (canonical messages): a faithful request passes, whether the arguments are JSON text or the parsed value', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'go' });
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'deep', arguments: deep.text }] });
    log.append('tool_result', { content: 'done', toolCallId: 'c1', name: 'deep' });
    expect(check(log, [user('go'), call(deep.text), result])).toEqual({ ok: true });
    expect(check(log, [user('go'), call(deep.value), result])).toEqual({ ok: true });
  });

  it('check: a request with a real fault reports that fault, not invalid_request', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'go' });
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'deep', arguments: deep.text }] });
    log.append('tool_result', { content: 'done', toolCallId: 'c1', name: 'deep' });
    const kindOf = (request: Message[]) => {
      const r = check(log, request);
      return r.ok ? 'ok' : r.violation.kind;
    };
    expect(kindOf([call(deep.value), result])).toBe('missing_message');
    expect(kindOf([user('go'), user('ghost'), call(deep.value), result])).toBe('extra_message');
    expect(kindOf([user('go'), result, call(deep.value)])).toBe('order');
    // A difference 100,000 levels down is a rewrite of the call.
    expect(kindOf([user('go'), call(deepArguments(2).value), result])).toBe('missing_message');
  });

  it('the implicit log: Chat Completions arguments as a JSON string, continued correctly, are silent', () => {
    const h = implicitHarness({ captureContent: false });
    const first = [user('go')];
    expect(h.turn(first, call(deep.text)).violation).toBeUndefined();
    expect(h.send([...first, call(deep.text), result, user('next')]).violation).toBeUndefined();
  });

  it('the implicit log: a dropped message behind deep arguments is still missing_message', () => {
    const h = implicitHarness({ captureContent: false });
    const first = [user('go'), user('more')];
    h.turn(first, call(deep.text));
    expect(h.send([user('go'), call(deep.text), result]).violation).toMatchObject({ kind: 'missing_message' });
  });

  it('the implicit log: Anthropic tool_use.input as an object, read by the adapter, continued correctly, is silent', () => {
    const h = implicitHarness({ captureContent: false });
    const request = fromAnthropic({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'deep', input: deep.value }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'done' }] },
      ],
    });
    expect(h.turn(request.slice(0, 1), request[1]!).violation).toBeUndefined();
    expect(h.send(request).violation).toBeUndefined();
  });
});

describe('the stack running out is an internal error, never a violation', () => {
  let otel: OtelHarness;
  beforeEach(() => {
    resetWarnings();
    setLogger({ warn: () => {} });
    otel = registerOtel();
  });
  afterEach(async () => {
    setLogger(null);
    vi.unstubAllEnvs();
    await otel.teardown();
  });

  it('verify counts it once as an internal error and records no violation', async () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'go' });
    const exhausting = {
      get role(): string {
        return (exhausting as { role: string }).role;
      },
    };
    const warned: string[] = [];
    setLogger({ warn: (m) => warned.push(m) });
    expect(() => verify(log, [exhausting as unknown as Message], { mode: 'strict' })).not.toThrow();
    expect(await otel.points(VIOLATION_METRIC)).toEqual([]);
    expect(await otel.points(INTERNAL_ERROR_METRIC)).toMatchObject([
      { value: 1, attributes: { 'nous.session.invariant.where': 'verify' } },
    ]);
    expect(warned).toEqual([expect.stringMatching(/internal error in verify .*Maximum call stack size exceeded/)]);
  });
});
