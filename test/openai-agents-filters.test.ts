// The Agents SDK's input filters: a `callModelInputFilter` and a handoff
// input filter change what the model is sent, never what the log holds. The
// log keeps the run's own history in the run's order, and what a filter
// produced is checked like any request builder's: against the bound log, or,
// with none, against the run's own history with the model's replies
// (the implicit log). An app that filters on purpose trusts its filters
// (`trustInputFilters`, NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS), or
// turns the check off for the run (docs/behaviour.md §5.5).

import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTR_KIND, ATTR_LOG, CHECKS_METRIC } from '../src/telemetry/semconv';
import { VIOLATION_METRIC, withSession, type Message } from '../src/index';
import { AgentsLogSession } from '../src/openai-agents';
import { SessionView, replaceRange } from '../src/history';
import { requireSdk, useInstrumentedProvider } from './support/instrumented';
import { loadAgents, weatherAgent as weatherAgentOf, type AgentsModule } from './support/agents';
import { runNode } from './support/run-node';

type Item = { type?: string; role?: string; content?: unknown };
type ModelData = { input: Item[]; instructions?: string };
type HandoffData = { inputHistory: string | Item[]; preHandoffItems: unknown[]; newItems: unknown[] };

const suite = useInstrumentedProvider({ mode: 'warn' });
let agents: AgentsModule;
let removeAllTools: (data: HandoffData) => HandoffData;

beforeAll(() => {
  agents = loadAgents(suite);
  // The SDK's own handoff filter, from the core package @openai/agents depends on.
  ({ removeAllTools } = createRequire(requireSdk.resolve('@openai/agents'))('@openai/agents-core/extensions') as {
    removeAllTools: typeof removeAllTools;
  });
});

const weatherAgent = () => weatherAgentOf(agents);

/** Violations counted so far, by `kind/log`. */
async function violationsByKind(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const p of await suite.env.otel.points(VIOLATION_METRIC)) {
    const key = `${String(p.attributes[ATTR_KIND])}/${String(p.attributes[ATTR_LOG])}`;
    counts[key] = (counts[key] ?? 0) + p.value;
  }
  return counts;
}

/** What `fn` added to the violation counter, by `kind/log`. */
async function newViolations(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await violationsByKind();
  await fn();
  const after = await violationsByKind();
  const added: Record<string, number> = {};
  for (const [key, n] of Object.entries(after)) if (n - (before[key] ?? 0) > 0) added[key] = n - (before[key] ?? 0);
  return added;
}

/** Runs `fn` with the instrumentation's `trustInputFilters` set. */
async function trusting<T>(fn: () => Promise<T>): Promise<T> {
  const config = suite.env.instrumentation.getConfig();
  suite.env.instrumentation.setConfig({ ...config, trustInputFilters: true });
  try {
    return await fn();
  } finally {
    suite.env.instrumentation.setConfig(config);
  }
}

const shape = (messages: readonly Message[]) =>
  messages.map((m) => (m.role === 'assistant' && m.toolCalls?.length ? `assistant:${m.toolCalls[0]!.name}` : m.role));
/** The shape of the log after two runs of the weather agent, each a question, a tool call, its result and the answer. */
const TWO_WEATHER_RUNS = ['user', 'assistant:get_weather', 'tool', 'assistant', 'user', 'assistant:get_weather', 'tool', 'assistant'];
const texts = (messages: readonly Message[]) => messages.filter((m) => m.role === 'user').map((m) => m.content);

/** Two runs of `agent` on one AgentsLogSession (strict unless told); returns the log and what the run changed on the counters. */
async function twoRuns(
  agent: ReturnType<typeof weatherAgent>,
  options: Record<string, unknown>,
  mode: 'strict' | 'warn' | 'off' = 'strict',
) {
  const session = new AgentsLogSession();
  const checks = await suite.env.otel.total(CHECKS_METRIC);
  const violations = await suite.env.otel.total(VIOLATION_METRIC);
  const sent = suite.server.received.length;
  for (const question of ['Umbrella in Lisbon?', 'And tomorrow?']) {
    await withSession(session.log, () => agents.run(agent, question, { session, ...options }), { mode });
  }
  return {
    log: session.log.deriveMessages(),
    session,
    requests: suite.server.received.slice(sent).map((r) => r.body.input as Item[]),
    checks: (await suite.env.otel.total(CHECKS_METRIC)) - checks,
    violations: (await suite.env.otel.total(VIOLATION_METRIC)) - violations,
  };
}

describe('callModelInputFilter', () => {
  it('a filter that drops the user message: the log keeps it, in order, nothing is appended twice, and each request is reported', async () => {
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => ({
      ...modelData,
      input: modelData.input.filter((item, i) => !(i === 0 && item.role === 'user')),
    });
    const kinds = await violationsByKind();
    const run = await twoRuns(weatherAgent(), { callModelInputFilter }, 'warn');
    // The first run's model saw no user message, so it answered without a tool call.
    expect(shape(run.log)).toEqual(['user', 'assistant', 'user', 'assistant:get_weather', 'tool', 'assistant']);
    expect(texts(run.log)).toEqual(['Umbrella in Lisbon?', 'And tomorrow?']);
    expect(run.requests[0]).toEqual([]);
    expect(run.checks).toBe(3);
    // Every request left out the conversation's first user message.
    expect(run.violations).toBe(3);
    expect((await violationsByKind())['missing_message/bound']).toBe((kinds['missing_message/bound'] ?? 0) + 3);
    // The next run is handed the log's history, not the filtered one.
    expect((await run.session.getItems()).length).toBe(6);
  });

  it('a filter that drops old tool results: the log keeps every result after its call, and the request is reported', async () => {
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => {
      const last = modelData.input.map((item) => item.type).lastIndexOf('function_call_result');
      return { ...modelData, input: modelData.input.filter((item, i) => item.type !== 'function_call_result' || i === last) };
    };
    const run = await twoRuns(weatherAgent(), { callModelInputFilter }, 'warn');
    expect(shape(run.log)).toEqual(TWO_WEATHER_RUNS);
    // The second run's last request left out the first run's tool result.
    expect(run.requests.at(-1)!.filter((item) => item.type === 'function_call_output')).toHaveLength(1);
    expect(run.checks).toBe(4);
    // Only that request left one out.
    expect(run.violations).toBe(1);
  });

  it('a filter that redacts the user message: the log keeps what the user said, once, and each request is reported', async () => {
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => ({
      ...modelData,
      input: modelData.input.map((item) => (item.role === 'user' ? { ...item, content: '[redacted]' } : item)),
    });
    const run = await twoRuns(weatherAgent(), { callModelInputFilter }, 'warn');
    expect(shape(run.log)).toEqual(TWO_WEATHER_RUNS);
    expect(texts(run.log)).toEqual(['Umbrella in Lisbon?', 'And tomorrow?']);
    expect(run.requests[0]).toEqual([{ role: 'user', content: '[redacted]' }]);
    expect(run.violations).toBe(run.checks);
  });

  it('a filtered run whose session dropped history is still caught', async () => {
    class ForgetfulSession extends AgentsLogSession {
      override async getItems(limit?: number) {
        return (await super.getItems(limit)).slice(1);
      }
    }
    const session = new ForgetfulSession();
    const agent = weatherAgent();
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => modelData;
    await withSession(session.log, () =>
      agents.run(agent, 'Umbrella in Lisbon?', { session, callModelInputFilter: callModelInputFilter as never }),
    );
    const before = await suite.env.otel.total(VIOLATION_METRIC);
    await withSession(session.log, () =>
      agents.run(agent, 'And tomorrow?', { session, callModelInputFilter: callModelInputFilter as never }),
    );
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBeGreaterThan(before);
    // What the run did is still appended, in the run's order.
    expect(shape(session.log.deriveMessages())).toEqual(TWO_WEATHER_RUNS);
  });

  it('a streamed run with a trusted filter is recorded in order too, in strict mode', async () => {
    const session = new AgentsLogSession();
    const violations = await suite.env.otel.total(VIOLATION_METRIC);
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => ({
      ...modelData,
      input: modelData.input.map((item) => (item.role === 'user' ? { ...item, content: '[redacted]' } : item)),
    });
    await trusting(async () => {
      const result = await withSession(
        session.log,
        () =>
          agents.run(weatherAgent(), 'Umbrella in Lisbon?', { session, stream: true, callModelInputFilter: callModelInputFilter as never }),
        { mode: 'strict' },
      );
      for await (const _event of result) {
        // drain the stream
      }
      await result.completed;
    });
    expect(shape(session.log.deriveMessages())).toEqual(['user', 'assistant:get_weather', 'tool', 'assistant']);
    expect(texts(session.log.deriveMessages())).toEqual(['Umbrella in Lisbon?']);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(violations);
  });
});

// The five faults a request builder can commit, each as a callModelInputFilter that commits it once: on the
// second run's first request, the first whose input holds one of the model's answers.
type Fault = (input: Item[]) => Item[];
const lastIndex = (input: Item[], test: (item: Item) => boolean) => input.map(test).lastIndexOf(true);
const isUser = (item: Item) => item.role === 'user';
const FAULTS: Array<[name: string, kind: string, fault: Fault]> = [
  ['drops an old turn', 'missing_message', (input) => input.filter((_, i) => i !== input.findIndex(isUser))],
  [
    "drops the model's last reply",
    'missing_message',
    (input) => input.filter((_, i) => i !== lastIndex(input, (item) => item.role === 'assistant')),
  ],
  ['duplicates a user message', 'extra_message', (input) => [...input, { ...input.at(-1)! }]],
  [
    'truncates a tool result',
    'missing_message',
    (input) =>
      input.map((item, i) =>
        i === lastIndex(input, (it) => it.type === 'function_call_result') ? { ...item, output: { type: 'text', text: '{"city"' } } : item,
      ),
  ],
  [
    'injects an assistant message',
    'extra_message',
    (input) => {
      const at = lastIndex(input, isUser);
      const injected = {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'It will rain.' }],
      };
      return [...input.slice(0, at), injected, ...input.slice(at)];
    },
  ],
];

/** A callModelInputFilter that commits `fault` once, on the first request whose input holds an answer of the model. */
function faultyFilter(fault: Fault) {
  let done = false;
  return ({ modelData }: { modelData: ModelData }) => {
    if (done || !modelData.input.some((item) => item.role === 'assistant')) return modelData;
    done = true;
    return { ...modelData, input: fault(modelData.input) };
  };
}
const passThrough = ({ modelData }: { modelData: ModelData }) => modelData;

/** Two runs with no bound log, each handed the previous run's history, as an app without a Session does. */
async function twoImplicitRuns(filter: unknown, first: string) {
  let history: unknown[] = [];
  for (const question of [first, 'And tomorrow?']) {
    const result = await agents.run(weatherAgent(), [...(history as never[]), { role: 'user', content: question }] as never, {
      callModelInputFilter: filter as never,
    });
    history = result.history;
  }
}

describe('a callModelInputFilter is a request builder: what it sends is checked', () => {
  for (const [name, kind, fault] of FAULTS) {
    it(`a filter that ${name}: reported once, ${kind}, against the bound log`, async () => {
      let run: Awaited<ReturnType<typeof twoRuns>> | undefined;
      const added = await newViolations(async () => {
        run = await twoRuns(weatherAgent(), { callModelInputFilter: faultyFilter(fault) }, 'warn');
      });
      expect(added).toEqual({ [`${kind}/bound`]: 1 });
      // The log is the run's own history, not the filter's.
      expect(shape(run!.log)).toEqual(TWO_WEATHER_RUNS);
    });

    it(`a filter that ${name}: reported once, ${kind}, against the implicit log`, async () => {
      const added = await newViolations(() => twoImplicitRuns(faultyFilter(fault), `Umbrella in Lisbon? (${name})`));
      expect(added).toEqual({ [`${kind}/implicit`]: 1 });
    });
  }

  it('a filter-free run and a pass-through filter stay silent, bound (strict) and implicit', async () => {
    const added = await newViolations(async () => {
      expect((await twoRuns(weatherAgent(), {})).checks).toBe(4);
      expect((await twoRuns(weatherAgent(), { callModelInputFilter: passThrough })).checks).toBe(4);
      await twoImplicitRuns(undefined, 'Umbrella in Lisbon? (no filter)');
      await twoImplicitRuns(passThrough, 'Umbrella in Lisbon? (pass-through)');
    });
    expect(added).toEqual({});
  });

  it('opt-outs: a run bound with mode off, and trusted filters (bound and implicit), report nothing', async () => {
    const [, , dropReply] = FAULTS[1]!;
    const added = await newViolations(async () => {
      await twoRuns(weatherAgent(), { callModelInputFilter: faultyFilter(dropReply) }, 'off');
      await trusting(async () => {
        await twoRuns(weatherAgent(), { callModelInputFilter: faultyFilter(dropReply) }, 'warn');
        await twoImplicitRuns(faultyFilter(dropReply), 'Umbrella in Lisbon? (trusted)');
      });
    });
    expect(added).toEqual({});
  });

  it('a change the app records in the log is no violation: the runner is handed the compacted history', async () => {
    const session = new AgentsLogSession();
    const agent = weatherAgent();
    const added = await newViolations(async () => {
      await withSession(session.log, () => agents.run(agent, 'Umbrella in Lisbon?', { session }), { mode: 'strict' });
      // Instead of a filter that drops the first turn: the first turn replaced by a summary, in the log.
      const view = new SessionView(session.log);
      const summary = { role: 'user' as const, content: 'Earlier: it rains in Lisbon.' };
      expect(replaceRange(view, 0, view.messages.length - 1, summary).ok).toBe(true);
      await withSession(session.log, () => agents.run(agent, 'And tomorrow?', { session }), { mode: 'strict' });
    });
    expect(added).toEqual({});
    expect(shape(session.log.deriveMessages())).toEqual(['user', 'user', 'assistant:get_weather', 'tool', 'assistant']);
  });
});

describe('handoff input filters', () => {
  const triageOf = (inputFilter: unknown) =>
    new agents.Agent({
      name: 'triage',
      instructions: 'Hand weather questions over.',
      model: 'gpt-test',
      handoffs: [agents.handoff(weatherAgent(), { inputFilter: inputFilter as never })],
    });
  const oneRun = ['user', 'assistant:transfer_to_weather', 'tool', 'assistant:get_weather', 'tool', 'assistant'];

  it("removeAllTools on a handoff: the handoff's result stays after its call, and the next agent's requests are reported", async () => {
    let run: Awaited<ReturnType<typeof twoRuns>> | undefined;
    const added = await newViolations(async () => {
      run = await twoRuns(triageOf(removeAllTools), {}, 'warn');
    });
    expect(shape(run!.log)).toEqual([...oneRun, ...oneRun]);
    expect(run!.checks).toBe(6);
    // Each of the weather agent's requests left out the handoff's call and result (and, in the second run, the first run's tools).
    expect(added).toEqual({ 'missing_message/bound': 4 });
  });

  it("with no bound log, removeAllTools on a handoff is reported against the run's own history; a pass-through filter, or trusted filters, are silent", async () => {
    const handoffRuns = async (inputFilter: unknown, first: string) => {
      let history: unknown[] = [];
      for (const question of [first, 'And tomorrow?']) {
        history = (await agents.run(triageOf(inputFilter), [...(history as never[]), { role: 'user', content: question }] as never))
          .history;
      }
    };
    // The weather agent's four requests, and the second run's first: the app hands it the run's history as
    // `result.history` gives it, which the filter left without the handoff's call and result.
    expect(await newViolations(() => handoffRuns(removeAllTools, 'Umbrella? (removeAllTools)'))).toEqual({ 'missing_message/implicit': 5 });
    expect(await newViolations(() => handoffRuns((data: HandoffData) => data, 'Umbrella? (pass-through)'))).toEqual({});
    // Trusted, the weather agent's requests are silent; the second run's first request is the app's, built from
    // the filtered `result.history`, and still lacks the handoff the model made.
    expect(await newViolations(() => trusting(() => handoffRuns(removeAllTools, 'Umbrella? (trusted)')))).toEqual({
      'missing_message/implicit': 1,
    });
  });

  it('a trusted removeAllTools on a handoff: the next agent is checked against the filtered view, strict and silent', async () => {
    const run = await trusting(() => twoRuns(triageOf(removeAllTools), {}));
    expect(shape(run.log)).toEqual([...oneRun, ...oneRun]);
    expect(run.violations).toBe(0);
    expect(run.checks).toBe(6);
    // After the handoff the weather agent was sent no tool items from before it.
    const afterHandoff = run.requests[1]!;
    expect(afterHandoff.some((item) => item.type === 'function_call' && (item as { name?: string }).name === 'transfer_to_weather')).toBe(
      false,
    );
  });
});

// An ES module app under --import: the filters' patches hold in the ESM copy of the runner too.
const ESM_APP = `
import * as agents from '@openai/agents';
import { removeAllTools } from '@openai/agents-core/extensions';
import OpenAI from 'openai';
import { withSession } from 'nous-session-invariant';
import { AgentsLogSession } from 'nous-session-invariant/openai-agents';
agents.setTracingDisabled(true);
agents.setDefaultOpenAIClient(new OpenAI({ apiKey: 'k', baseURL: process.env.FAKE_PROVIDER_URL, maxRetries: 0 }));
agents.setOpenAIAPI('responses');
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const getWeather = agents.tool({ name: 'get_weather', description: 'w', parameters, strict: true, execute: async () => 'rain' });
const weather = new agents.Agent({ name: 'weather', instructions: 'w', model: 'gpt-test', tools: [getWeather] });
const handoffs = [agents.handoff(weather, { inputFilter: removeAllTools })];
const triage = new agents.Agent({ name: 'triage', instructions: 't', model: 'gpt-test', handoffs });
const redact = (i) => (i.role === 'user' ? { ...i, content: '[redacted]' } : i);
const callModelInputFilter = ({ modelData }) => ({ ...modelData, input: modelData.input.map(redact) });
const session = new AgentsLogSession();
for (const q of ['Umbrella?', 'And tomorrow?']) {
  await withSession(session.log, () => agents.run(triage, q, { session, callModelInputFilter }), { mode: 'strict' });
}
const shape = (m) => m.role + (m.toolCalls?.length ? ':' + m.toolCalls[0].name : '') + (m.role === 'user' ? ':' + m.content : '');
console.log(JSON.stringify(session.log.deriveMessages().map(shape)));
`;

describe('in an ES module app', () => {
  it('a redacting callModelInputFilter and removeAllTools on a handoff, trusted, strict, under --import: the log is the run, in order', async () => {
    const run = await runNode(['--import', 'nous-session-invariant/register', '--input-type=module', '-e', ESM_APP], {
      NODE_ENV: 'test',
      NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS: 'true',
      OPENAI_AGENTS_DISABLE_TRACING: '1',
      FAKE_PROVIDER_URL: suite.server.openaiBaseURL,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/violation/);
    const oneRun = (question: string) => [
      `user:${question}`,
      'assistant:transfer_to_weather',
      'tool',
      'assistant:get_weather',
      'tool',
      'assistant',
    ];
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toEqual([...oneRun('Umbrella?'), ...oneRun('And tomorrow?')]);
  });
});

// Zero code: an unmodified app whose callModelInputFilter drops old tool results. The implicit log follows the
// run's unfiltered history, and the filtered request is checked against it: the dropped results are reported,
// unless the app trusts its filters (NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS).
const ZERO_CODE_APP = `
const agents = require('@openai/agents');
const OpenAI = require('openai');
agents.setTracingDisabled(true);
agents.setDefaultOpenAIClient(new OpenAI({ apiKey: 'k', baseURL: process.env.FAKE_PROVIDER_URL, maxRetries: 0 }));
agents.setOpenAIAPI('responses');
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const getWeather = agents.tool({ name: 'get_weather', description: 'w', parameters, strict: true, execute: async () => 'rain' });
const agent = new agents.Agent({ name: 'weather', instructions: 'w', model: 'gpt-test', tools: [getWeather] });
const callModelInputFilter = ({ modelData }) => {
  const last = modelData.input.map((i) => i.type).lastIndexOf('function_call_result');
  return { ...modelData, input: modelData.input.filter((i, k) => i.type !== 'function_call_result' || k === last) };
};
(async () => {
  let history = [];
  for (const [turn, q] of ['Umbrella?', 'And tomorrow?', 'And Sunday?'].entries()) {
    // FAULT=drop-answer: the app loses the first run's answer from the history it hands the third run.
    const kept = process.env.FAULT === 'drop-answer' && turn === 2 ? history.filter((_, k) => k !== 3) : history;
    history = (await agents.run(agent, [...kept, { role: 'user', content: q }], { callModelInputFilter })).history;
  }
  console.log('agent done');
})();
`;

describe('callModelInputFilter with zero code', () => {
  const runApp = (env: Record<string, string>) =>
    runNode(['--require', 'nous-session-invariant/register', '-e', ZERO_CODE_APP], {
      FAKE_PROVIDER_URL: suite.server.openaiBaseURL,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      ...env,
    });

  it('a filter that drops old tool results is reported against the implicit log, once per request that dropped one', async () => {
    const run = await runApp({});
    expect(run.stdout, run.stderr).toContain('agent done');
    const kinds = [...run.stderr.matchAll(/session invariant violation[^:\n]*: (\w+)/g)].map((m) => m[1]);
    expect(kinds).toEqual(Array(3).fill('missing_message'));
  });

  it('trusted with NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS, the same filter raises no violation', async () => {
    const run = await runApp({ NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS: 'true' });
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr).not.toMatch(/violation/);
  });

  it("with trusted filters, the app's own history bug is still reported", async () => {
    const run = await runApp({ FAULT: 'drop-answer', NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS: 'true' });
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr.match(/session invariant violation/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/missing_message/);
  });
});
