// The reply to an `openai` call with no session bound is taken from the
// client's own parse of the response (client-hook.ts `takeParsedReplies`):
// the body is parsed once, and what enters the conversation is what the model
// sent, read before the app's code sees the value, never a value the app or
// a subclass changed afterwards, and never another call's. Each test is one
// run (an app span), so a request that leaves out the reply the conversation
// holds is a lost reply (`missing_message`, docs/behaviour.md §8.2): a reply
// taken wrong shows as a request reported that should pass, or the reverse.

import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VIOLATION_METRIC } from '../../src/index';
import { useInstrumentedProvider } from '../support/instrumented';

const suite = useInstrumentedProvider({ mode: 'warn' });

type ChatMessage = { role: string; content: string | null };

/** Every violation reported so far, by kind (sorted). */
async function violationKinds(): Promise<string[]> {
  return (await suite.env.otel.points(VIOLATION_METRIC))
    .flatMap((p) => Array<string>(p.value).fill(String(p.attributes['nous.session.invariant.kind'])))
    .sort();
}

afterEach(() => vi.restoreAllMocks());

/** `fn` inside one app span: one run. */
function inOneRun<T>(fn: () => Promise<T>): Promise<T> {
  return trace.getTracer('app').startActiveSpan('agent run', async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

describe('the openai reply, from the client parse', () => {
  it('the reply body is parsed once, by the client', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
    const parse = vi.spyOn(JSON, 'parse');
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Parsed once?' }] });
    const text = completion.choices[0]!.message.content!;
    expect(text).toMatch(/^answer /);
    // `json()` (openai 6) parses inside the runtime; `text()` then `JSON.parse` (openai 7) in the client: never twice.
    const ofTheReply = parse.mock.calls.filter(([source]) => typeof source === 'string' && source.includes(text));
    expect(ofTheReply.length).toBeLessThanOrEqual(1);
  });

  it('a reply the app edits in place as soon as it has it is not what was recorded: re-sent, it leaves the reply out', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
    const history: ChatMessage[] = [{ role: 'user', content: 'Edited after the fact?' }];
    const send = () => client.chat.completions.create({ model: 'gpt-test', messages: history as never });
    const before = await violationKinds();
    await inOneRun(async () => {
      const first = (await send()).choices[0]!.message;
      first.content = `${first.content} (edited by the app)`;
      history.push(first, { role: 'user', content: 'And then?' });
      await send();
    });
    expect(await violationKinds()).toEqual([...before, 'missing_message'].sort());
  });

  it('a subclass that changes what the parse returns: the model reply, as sent, is what enters the conversation', async () => {
    const Base = suite.env.openai.OpenAI as unknown as new (options: object) => object;
    const Changing = class extends Base {
      async parseResponseWithTimeout(...args: unknown[]): Promise<unknown> {
        const parent = (Base.prototype as { parseResponseWithTimeout?: (...a: unknown[]) => Promise<unknown> }).parseResponseWithTimeout;
        const value = (await parent!.apply(this, args)) as { choices?: Array<{ message: ChatMessage }> };
        for (const choice of value.choices ?? []) choice.message.content = `${choice.message.content} (rewritten)`;
        return value;
      }
    };
    if (!('parseResponseWithTimeout' in Base.prototype)) return; // an openai with no such method parses with json(): nothing to hand over
    const client = new Changing({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, maxRetries: 0 }) as unknown as InstanceType<
      typeof suite.env.openai.OpenAI
    >;
    const history: ChatMessage[] = [{ role: 'user', content: 'Rewritten by a subclass?' }];
    const send = () => client.chat.completions.create({ model: 'gpt-test', messages: history as never });
    const before = await violationKinds();
    await inOneRun(async () => {
      const first = (await send()).choices[0]!.message;
      expect(first.content).toMatch(/\(rewritten\)$/);
      history.push(first, { role: 'user', content: 'And then?' });
      await send();
    });
    expect(await violationKinds()).toEqual([...before, 'missing_message'].sort());
  });

  it('concurrent calls on one client each record their own reply', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
    const histories: ChatMessage[][] = Array.from({ length: 4 }, (_, i) => [{ role: 'user', content: `Concurrent ${i}?` }]);
    const sendAll = () =>
      Promise.all(histories.map((history) => client.chat.completions.create({ model: 'gpt-test', messages: history as never })));
    const before = await violationKinds();
    await inOneRun(async () => {
      for (let turn = 0; turn < 3; turn++) {
        const replies = await sendAll();
        replies.forEach((reply, i) => histories[i]!.push(reply.choices[0]!.message, { role: 'user', content: `Turn ${turn}.` }));
      }
      await sendAll();
    });
    // A reply recorded on another call's conversation would leave that conversation's own out: a lost reply.
    expect(await violationKinds()).toEqual(before);
    // And the rule does see a reply left out here.
    await inOneRun(async () => {
      const history = histories[0]!;
      const reply = (await client.chat.completions.create({ model: 'gpt-test', messages: history as never })).choices[0]!.message;
      expect(reply.content).toMatch(/^answer /);
      await client.chat.completions.create({
        model: 'gpt-test',
        messages: [...history, { role: 'user', content: 'Skipped it.' }] as never,
      });
    });
    expect(await violationKinds()).toEqual([...before, 'missing_message']);
  });
});
