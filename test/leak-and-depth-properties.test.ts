// Properties of two classes of defect: no prompt text leaves the
// package with content capture off, whatever the messages and the violation;
// and valid JSON arguments of any depth or width never yield a violation kind
// the request does not have.

import { trace } from '@opentelemetry/api';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionInvariantViolation, SessionLog, check, setLogger, verify, type Message } from '../src/index';
import { resetWarnings } from '../src/warnings';
import { implicitHarness } from './support/implicit-harness';
import { renderingsOf } from './support/leaks';
import { registerOtel, type OtelHarness } from './support/otel';

/** Every message text carries this marker, so any copy of one is found wherever it ends up. */
const MARK = 'PROMPT_';
const textArb = fc.string({ minLength: 0, maxLength: 200 }).map((s) => `${MARK}${s}`);

/** A request with one real fault against a log of `texts`, as user and assistant messages alternating. */
const faultArb = fc
  .record({
    texts: fc.array(textArb, { minLength: 2, maxLength: 8 }),
    fault: fc.constantFrom('drop', 'ghost', 'rewrite', 'swap', 'duplicate'),
    at: fc.nat(),
    ghost: textArb,
  })
  .map(({ texts, fault, at, ghost }) => {
    const messages: Message[] = texts.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }));
    const i = at % messages.length;
    const request = messages.slice();
    if (fault === 'drop') request.splice(i, 1);
    else if (fault === 'ghost') request.splice(i, 0, { role: 'user', content: ghost });
    else if (fault === 'rewrite') request[i] = { ...messages[i]!, content: `${ghost}!` };
    else if (fault === 'duplicate') request.splice(i, 0, messages[i]!);
    else request.reverse();
    return { messages, request };
  });

describe('with content capture off, no prompt text leaves the package', () => {
  let otel: OtelHarness;
  beforeEach(() => {
    resetWarnings();
    otel = registerOtel();
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', '');
  });
  afterEach(async () => {
    setLogger(null);
    vi.unstubAllEnvs();
    await otel.teardown();
  });

  it('in the error strict mode throws, the warning line, or the span event, for any messages and any violation', () => {
    fc.assert(
      fc.property(faultArb, ({ messages, request }) => {
        const log = new SessionLog();
        for (const m of messages) log.append(m.role === 'user' ? 'user_message' : 'assistant_message', { content: m.content });
        if (check(log, request).ok) return; // the swap of a symmetric list, say: no violation to look at
        const warned: string[] = [];
        setLogger({ warn: (m) => warned.push(m) });
        otel.spans.reset();
        let thrown: unknown;
        trace.getTracer('test').startActiveSpan('chat', (span) => {
          try {
            verify(log, request, { mode: 'strict' });
          } catch (error) {
            thrown = error;
          } finally {
            span.end();
          }
        });
        expect(thrown).toBeInstanceOf(SessionInvariantViolation);
        const exported = otel.spans.getFinishedSpans().flatMap((s) => s.events.map((e) => JSON.stringify(e.attributes)));
        for (const text of [...renderingsOf(thrown), ...warned, ...exported]) expect(text).not.toContain(MARK);
      }),
      { numRuns: 60 },
    );
  });
});

/** A JSON value nested `depth` levels deep around `inner`, alternating objects and arrays, as text and as its value. */
function nest(inner: unknown, depth: number, width: number): { text: string; value: unknown } {
  const head: string[] = [];
  const tail: string[] = [];
  const siblings = Array.from({ length: width }, (_, k) => k);
  let value = inner;
  for (let i = 0; i < depth; i++)
    value = i % 2 ? [...siblings, value] : { ...Object.fromEntries(siblings.map((k) => [`s${k}`, k])), d: value };
  for (let i = depth - 1; i >= 0; i--) {
    head.push(i % 2 ? `[${siblings.map((k) => `${k},`).join('')}` : `{${siblings.map((k) => `"s${k}":${k},`).join('')}"d":`);
    tail.push(i % 2 ? ']' : '}');
  }
  return { text: head.join('') + JSON.stringify(inner) + tail.reverse().join(''), value };
}

describe('valid JSON arguments of any depth and width', () => {
  const argumentsArb = fc.record({
    inner: fc.jsonValue({ maxDepth: 3 }),
    depth: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 190, max: 420 }), fc.integer({ min: 2_500, max: 4_000 })),
    width: fc.integer({ min: 0, max: 3 }),
    asText: fc.boolean(),
    fault: fc.constantFrom('none', 'drop', 'ghost'),
  });

  it('yield exactly the violation the request has: none, missing_message or extra_message, never invalid_request', () => {
    fc.assert(
      fc.property(argumentsArb, ({ inner, depth, width, asText, fault }) => {
        const args = nest(JSON.parse(JSON.stringify(inner)) as unknown, depth, width);
        const log = new SessionLog();
        log.append('user_message', { content: 'go' });
        log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: args.text }] });
        log.append('tool_result', { content: 'done', toolCallId: 'c1', name: 'f' });
        // A string in `arguments` is always JSON text (messages.ts), so a bare
        // string value (depth 0) has no parsed form of its own: send its text.
        const parsedForm = typeof args.value === 'string' ? args.text : args.value;
        const call: Message = {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'c1', name: 'f', arguments: asText ? args.text : parsedForm }],
        };
        const done: Message = { role: 'tool', content: 'done', toolCallId: 'c1', name: 'f' };
        const request: Message[] =
          fault === 'drop'
            ? [call, done]
            : fault === 'ghost'
              ? [{ role: 'user', content: 'go' }, { role: 'user', content: 'x' }, call, done]
              : [{ role: 'user', content: 'go' }, call, done];
        const result = check(log, request);
        const expected = fault === 'drop' ? 'missing_message' : fault === 'ghost' ? 'extra_message' : 'ok';
        expect(result.ok ? 'ok' : result.violation.kind).toBe(expected);
        // The implicit log sees the same conversation grow correctly: silent.
        const h = implicitHarness({ captureContent: false });
        h.turn([{ role: 'user', content: 'go' }], call);
        expect(h.send([{ role: 'user', content: 'go' }, call, done, { role: 'user', content: 'next' }]).violation).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });
});
