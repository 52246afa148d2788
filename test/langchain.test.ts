// LangChain.js with a bound log (nous-session-invariant/langchain): ChatOpenAI
// in a hand-written loop, LangGraph's createReactAgent and langchain's
// createAgent, on the loopback provider, with the real packages from the
// fixture project (test/fixtures/langchain).

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../src/telemetry/semconv';
import { SessionInvariantViolation, SessionLog, VIOLATION_METRIC, messagesMatch, withSession, type Message } from '../src/index';
import { fromOpenAIChat } from '../src/adapters';
import { appendLangChainMessages, sessionLogHooks, sessionLogMiddleware, toLangChainMessages } from '../src/langchain';
import { useInstrumentedProvider } from './support/instrumented';
import { FAULTS } from './support/faults';

const FIXTURE = join(__dirname, 'fixtures/langchain');
const load = createRequire(join(FIXTURE, 'package.json'));
const { withFault, QUESTIONS, FOLLOW_UP } = createRequire(__filename)('./fixtures/zero-code/faults.cjs') as {
  withFault(messages: unknown[], fault: string, shape: unknown): unknown[];
  QUESTIONS: string[];
  FOLLOW_UP: string;
};

// The fixture's packages are loaded untyped, through require.
type Any = any;

const suite = useInstrumentedProvider({ mode: 'warn' });
let lc: { ChatOpenAI: Any; messages: Any; tool: Any; createReactAgent: Any; createAgent: Any; createMiddleware: Any; MemorySaver: Any };

beforeAll(() => {
  // Loaded through require after the instrumentation, as `--require .../register` does.
  lc = {
    ChatOpenAI: load('@langchain/openai').ChatOpenAI,
    messages: load('@langchain/core/messages'),
    tool: load('@langchain/core/tools').tool,
    createReactAgent: load('@langchain/langgraph/prebuilt').createReactAgent,
    createAgent: load('langchain').createAgent,
    createMiddleware: load('langchain').createMiddleware,
    MemorySaver: load('@langchain/langgraph').MemorySaver,
  };
});

function model() {
  return new lc.ChatOpenAI({
    model: 'gpt-test',
    apiKey: 'test-key',
    configuration: { baseURL: suite.server.openaiBaseURL },
    maxRetries: 0,
  });
}

function weather() {
  return lc.tool(async ({ city }: { city: string }) => JSON.stringify({ city, rain: true, temperature: 14 }), {
    name: 'get_weather',
    description: 'The weather in a city',
    schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  });
}

/** The history bugs of the zero-code fixtures, on LangChain messages. */
function shape() {
  const { AIMessage, HumanMessage, ToolMessage } = lc.messages;
  return {
    isUser: (m: Any) => HumanMessage.isInstance(m),
    isResult: (m: Any) => ToolMessage.isInstance(m),
    truncate: (m: Any) => new ToolMessage({ content: String(m.content).slice(0, 5), tool_call_id: m.tool_call_id, name: m.name }),
    fakeReply: () => new AIMessage('As promised, here is your refund.'),
  };
}

async function byKind(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of await suite.env.otel.points(VIOLATION_METRIC)) {
    const kind = String(p.attributes['nous.session.invariant.kind']);
    out[kind] = (out[kind] ?? 0) + p.value;
  }
  return out;
}

/** What `body` fn added to the violation counter, by kind, and to the checks counter. */
async function measure(fn: () => Promise<unknown>): Promise<{ kinds: Record<string, number>; checks: number; requests: number }> {
  const before = await byKind();
  const checks = await suite.env.otel.total(CHECKS_METRIC);
  const requests = suite.server.received.length;
  await fn();
  const after = await byKind();
  const kinds: Record<string, number> = {};
  for (const [kind, n] of Object.entries(after)) if (n - (before[kind] ?? 0) > 0) kinds[kind] = n - (before[kind] ?? 0);
  return { kinds, checks: (await suite.env.otel.total(CHECKS_METRIC)) - checks, requests: suite.server.received.length - requests };
}

/** The last chat request the provider received, as canonical messages, without a leading system message the fold lacks (the overlay). */
function lastSent(fold: readonly Message[]): Message[] {
  const request = suite.server.received.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
  const sent = fromOpenAIChat(request.body.messages as unknown[]);
  if (sent[0]?.role === 'system' && fold[0]?.role !== 'system') sent.shift();
  return sent;
}

/** The last request was the fold without the reply it got, message for message. */
function expectFoldWasSent(log: SessionLog): void {
  const fold = log.deriveMessages();
  const sent = lastSent(fold);
  expect(sent.length).toBe(fold.length - 1);
  sent.forEach((m, i) => expect(messagesMatch(m, fold[i]!), `message ${i}`).toBe(true));
  expect(fold.at(-1)!.role).toBe('assistant');
}

it('has its fixture installed (the test run installs it)', () => {
  expect(existsSync(join(FIXTURE, 'node_modules/@langchain/openai/package.json'))).toBe(true);
});

describe('ChatOpenAI in a hand-written tool loop, recorded with appendLangChainMessages', () => {
  /** Four turns (and a follow-up in the second); the app keeps its own history and records into the log what it adds. */
  async function chatLoop(log: SessionLog, fault = 'none', mode: 'warn' | 'strict' = 'warn') {
    const { HumanMessage, SystemMessage } = lc.messages;
    const getWeather = weather();
    const bound = model().bindTools([getWeather]);
    const system = new SystemMessage('You are a weather assistant.');
    let history: Any[] = [];
    const add = (...messages: Any[]) => {
      history = [...history, ...messages];
      appendLangChainMessages(log, messages);
    };
    const ask = async (question: string, forget: boolean) => {
      add(new HumanMessage(question));
      for (;;) {
        const reply = await withSession(log, () => bound.invoke([system, ...withFault(history, fault, shape())]), { mode });
        if (forget && !reply.tool_calls?.length) appendLangChainMessages(log, [reply]);
        else add(reply);
        if (!reply.tool_calls?.length) return;
        for (const call of reply.tool_calls) add(await getWeather.invoke(call));
      }
    };
    for (const [turn, question] of QUESTIONS.entries()) {
      await ask(question, fault === 'drop-last-reply' && turn === 1);
      if (turn === 1) await ask(FOLLOW_UP, false);
    }
  }

  it('a correct multi-turn tool loop stays silent in strict mode, and the fold is what the model was sent', async () => {
    const log = new SessionLog();
    const result = await measure(() => chatLoop(log, 'none', 'strict'));
    expect(result.kinds).toEqual({});
    expect(result.checks).toBe(10);
    expect(result.requests).toBe(10);
    expectFoldWasSent(log);
    expect(log.deriveMessages().map((m) => m.role)).toEqual(Array(5).fill(['user', 'assistant', 'tool', 'assistant']).flat());
    // The tool result is named after its tool, and each message keeps its LangChain id where it had one.
    expect(log.deriveMessages()[2]).toMatchObject({ role: 'tool', name: 'get_weather' });
    expect(log.deriveMessages()[1]!.metadata).toEqual({ langchainMessageId: expect.stringMatching(/^chatcmpl-/) });
  });

  it('requests built from the log with toLangChainMessages pass by construction', async () => {
    const log = new SessionLog();
    const getWeather = weather();
    const bound = model().bindTools([getWeather]);
    const result = await measure(async () => {
      for (const question of QUESTIONS.slice(0, 2)) {
        appendLangChainMessages(log, [new lc.messages.HumanMessage(question)]);
        for (;;) {
          const reply = await withSession(log, () => bound.invoke(toLangChainMessages(log.deriveMessages())), { mode: 'strict' });
          appendLangChainMessages(log, [reply]);
          if (!reply.tool_calls?.length) break;
          for (const call of reply.tool_calls) appendLangChainMessages(log, [await getWeather.invoke(call)]);
        }
      }
    });
    expect(result.kinds).toEqual({});
    expect(result.checks).toBe(4);
    expectFoldWasSent(log);
  });

  it('strict mode stops a request the log cannot rebuild before it is sent', async () => {
    const log = new SessionLog();
    appendLangChainMessages(log, [new lc.messages.HumanMessage('Umbrella in Lisbon?')]);
    const sent = suite.server.received.length;
    const run = withSession(log, () => model().invoke([new lc.messages.HumanMessage('Something else')]), { mode: 'strict' });
    await expect(run).rejects.toBeInstanceOf(SessionInvariantViolation);
    await expect(run).rejects.toMatchObject({ details: { kind: 'missing_message' } });
    expect(suite.server.received.length).toBe(sent);
  });

  it("a strict violation is not retried by ChatOpenAI's retry logic (default maxRetries): one check, thrown at once", async () => {
    const log = new SessionLog();
    appendLangChainMessages(log, [new lc.messages.HumanMessage('Umbrella in Lisbon?')]);
    const retrying = new lc.ChatOpenAI({ model: 'gpt-test', apiKey: 'test-key', configuration: { baseURL: suite.server.openaiBaseURL } });
    const checks = async () => await suite.env.otel.total(CHECKS_METRIC);
    const before = await checks();
    const started = Date.now();
    const run = withSession(log, () => retrying.invoke([new lc.messages.HumanMessage('Something else')]), { mode: 'strict' });
    await expect(run).rejects.toBeInstanceOf(SessionInvariantViolation);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await checks()) - before).toBe(1);
  });

  it.each(FAULTS)('%s is caught as %s', async (fault, kind) => {
    const result = await measure(() => chatLoop(new SessionLog(), fault));
    expect(Object.keys(result.kinds)).toEqual([kind]);
  });
});

/**
 * A graph agent driven as the zero-code fixture drives it: each turn is one
 * invoke over the whole history (with the system message in front), which
 * comes back with the turn's messages added.
 */
async function graphLoop(agent: Any, bind: (fn: () => Promise<Any>) => Promise<Any>, fault = 'none') {
  const { HumanMessage, SystemMessage } = lc.messages;
  const system = new SystemMessage('You are a weather assistant.');
  let history: Any[] = [];
  const ask = async (question: string, forget: boolean) => {
    // The message reducer merges messages by id, so a message sent twice must be a copy to reach the model twice.
    const sent = withFault([...history, new HumanMessage(question)], fault, shape()).map((m: Any, i, all) =>
      all.indexOf(m) === i ? m : new HumanMessage(String(m.content)),
    );
    const { messages } = await bind(() => agent.invoke({ messages: [system, ...sent] }));
    const turn = messages.slice(sent.length + 1);
    history = [...history, new HumanMessage(question), ...(forget ? turn.slice(0, -1) : turn)];
  };
  for (const [turn, question] of QUESTIONS.entries()) {
    await ask(question, fault === 'drop-last-reply' && turn === 1);
    if (turn === 1) await ask(FOLLOW_UP, false);
  }
}

describe.each([
  {
    name: "LangGraph's createReactAgent with sessionLogHooks",
    agent: (log: SessionLog) => lc.createReactAgent({ llm: model(), tools: [weather()], ...sessionLogHooks(log) }),
    bind: (log: SessionLog, mode: 'warn' | 'strict') => (fn: () => Promise<Any>) => withSession(log, fn, { mode }),
  },
  {
    name: "langchain's createAgent with sessionLogMiddleware",
    agent: (log: SessionLog, mode: 'warn' | 'strict' = 'warn') =>
      lc.createAgent({ model: model(), tools: [weather()], middleware: [sessionLogMiddleware(log, { mode })] }),
    // The middleware binds the log around each model call itself.
    bind: () => (fn: () => Promise<Any>) => fn(),
  },
])('$name', ({ agent, bind }) => {
  it('a correct multi-turn tool loop stays silent in strict mode, and the fold is what the model was sent', async () => {
    const log = new SessionLog();
    const result = await measure(() => graphLoop(agent(log, 'strict'), bind(log, 'strict')));
    expect(result.kinds).toEqual({});
    expect(result.checks).toBe(10);
    expectFoldWasSent(log);
    expect(log.deriveMessages().map((m) => m.role)).toEqual([
      'system',
      ...Array(5).fill(['user', 'assistant', 'tool', 'assistant']).flat(),
    ]);
    expect(log.deriveMessages()[3]).toMatchObject({ role: 'tool', name: 'get_weather', content: expect.stringContaining('Lisbon') });
  });

  it.each(FAULTS)('%s is caught as %s', async (fault, kind) => {
    const log = new SessionLog();
    const result = await measure(() => graphLoop(agent(log), bind(log, 'warn'), fault));
    expect(Object.keys(result.kinds)).toEqual([kind]);
  });

  it('a log restored from JSON keeps the agent in step: the recorder knows its messages by their LangChain ids', async () => {
    const log = new SessionLog();
    const { HumanMessage } = lc.messages;
    const first = await bind(log, 'strict')(() => agent(log, 'strict').invoke({ messages: [new HumanMessage('Umbrella in Lisbon?')] }));
    const restored = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)));
    const result = await measure(() =>
      bind(
        restored,
        'strict',
      )(() => agent(restored, 'strict').invoke({ messages: [...first.messages, new HumanMessage('And in Porto?')] })),
    );
    expect(result.kinds).toEqual({});
    expect(restored.count).toBe(log.count + 4);
    expectFoldWasSent(restored);
  });
});

describe("langchain's createAgent: more of its API", () => {
  it('with a checkpointer, a thread passes only the new message each turn, and stays silent in strict mode', async () => {
    const log = new SessionLog();
    const agent = lc.createAgent({
      model: model(),
      tools: [weather()],
      systemPrompt: 'You are a weather assistant.',
      checkpointer: new lc.MemorySaver(),
      middleware: [sessionLogMiddleware(log, { mode: 'strict', agentName: 'weather' })],
    });
    const config = { configurable: { thread_id: 'thread-1' } };
    const result = await measure(async () => {
      for (const question of QUESTIONS) await agent.invoke({ messages: [{ role: 'user', content: question }] }, config);
    });
    expect(result.kinds).toEqual({});
    expect(result.checks).toBe(8);
    expectFoldWasSent(log);
    const points = await suite.env.otel.points(CHECKS_METRIC);
    expect(points.some((p) => p.attributes['gen_ai.agent.name'] === 'weather')).toBe(true);
  });

  it('another middleware dropping tool results from the model request is caught as missing_message, and the log keeps them', async () => {
    const log = new SessionLog();
    const dropToolResults = lc.createMiddleware({
      name: 'DropToolResults',
      wrapModelCall: (request: Any, handler: Any) =>
        handler({ ...request, messages: request.messages.filter((m: Any) => !lc.messages.ToolMessage.isInstance(m)) }),
    });
    const agent = lc.createAgent({ model: model(), tools: [weather()], middleware: [sessionLogMiddleware(log), dropToolResults] });
    const result = await measure(() => agent.invoke({ messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }] }));
    expect(result.kinds).toEqual({ missing_message: 1 });
    expect(log.deriveMessages().map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('a middleware that rewrites a tool result in the request is caught as missing_message, whatever the middleware order', async () => {
    for (const order of ['outer', 'inner']) {
      const log = new SessionLog();
      const truncate = lc.createMiddleware({
        name: 'TruncateToolResults',
        wrapModelCall: (request: Any, handler: Any) =>
          handler({
            ...request,
            messages: request.messages.map((m: Any) =>
              lc.messages.ToolMessage.isInstance(m) ? new lc.messages.ToolMessage({ ...m, content: String(m.content).slice(0, 5) }) : m,
            ),
          }),
      });
      const ours = sessionLogMiddleware(log);
      const agent = lc.createAgent({
        model: model(),
        tools: [weather()],
        middleware: order === 'outer' ? [ours, truncate] : [truncate, ours],
      });
      const result = await measure(() => agent.invoke({ messages: [{ role: 'user', content: 'Umbrella in Lisbon?' }] }));
      expect(result.kinds, order).toEqual({ missing_message: 1 });
    }
  });

  it("what the other middlewares' hooks put in the state (a beforeModel reminder, an afterModel edit of the reply) is recorded: silent in strict mode", async () => {
    const log = new SessionLog();
    const { AIMessage, HumanMessage } = lc.messages;
    let reminded = false;
    const remind = lc.createMiddleware({
      name: 'Reminder',
      beforeModel: () => {
        if (reminded) return undefined;
        reminded = true;
        return { messages: [new HumanMessage('Answer in Celsius.')] };
      },
    });
    // As a human-in-the-loop edit does: the reply replaced under its own id.
    const edit = lc.createMiddleware({
      name: 'EditReply',
      afterModel: (state: Any) => {
        const last = state.messages.at(-1);
        if (!AIMessage.isInstance(last) || last.tool_calls?.length) return undefined;
        return { messages: [new AIMessage({ content: `${String(last.content)} (reviewed)`, id: last.id })] };
      },
    });
    const agent = lc.createAgent({
      model: model(),
      tools: [weather()],
      checkpointer: new lc.MemorySaver(),
      middleware: [sessionLogMiddleware(log, { mode: 'strict' }), remind, edit],
    });
    const config = { configurable: { thread_id: 'thread-2' } };
    const result = await measure(async () => {
      for (const question of QUESTIONS.slice(0, 2)) await agent.invoke({ messages: [{ role: 'user', content: question }] }, config);
    });
    expect(result.kinds).toEqual({});
    expect(result.checks).toBe(4);
    const fold = log.deriveMessages();
    expect(fold.map((m) => m.content)).toContain('Answer in Celsius.');
    expect(fold.filter((m) => String(m.content).endsWith('(reviewed)'))).toHaveLength(2);
  });

  it('strict mode stops the agent before an invented message reaches the provider', async () => {
    const log = new SessionLog();
    const agent = lc.createAgent({ model: model(), tools: [weather()], middleware: [sessionLogMiddleware(log, { mode: 'strict' })] });
    const sent = suite.server.received.length;
    const run = agent.invoke({
      messages: [new lc.messages.AIMessage('I never said this'), new lc.messages.HumanMessage('Umbrella in Lisbon?')],
    });
    await expect(run).rejects.toThrow(/extra_message/);
    expect(suite.server.received.length).toBe(sent);
    // The invented assistant message was not recorded: only the model's replies are.
    expect(log.deriveMessages().map((m) => m.role)).toEqual(['user']);
  });
});
