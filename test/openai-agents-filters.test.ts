// The Agents SDK's input filters with a SessionLog-backed Session: a
// `callModelInputFilter` and a handoff input filter change what the model is
// sent, never what the log holds. The log keeps the run's own history in the
// run's order; each request is checked against the filter's view, once the
// filter's input has lined up with the log (docs/behaviour.md §5.5).

import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../src/telemetry/semconv';
import { VIOLATION_METRIC, withSession, type Message } from '../src/index';
import { AgentsLogSession } from '../src/openai-agents';
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

async function total(metric: string): Promise<number> {
  return (await suite.env.otel.points(metric)).reduce((n, p) => n + p.value, 0);
}

const shape = (messages: readonly Message[]) =>
  messages.map((m) => (m.role === 'assistant' && m.toolCalls?.length ? `assistant:${m.toolCalls[0]!.name}` : m.role));
const texts = (messages: readonly Message[]) => messages.filter((m) => m.role === 'user').map((m) => m.content);

/** Two runs of `agent` on one AgentsLogSession in strict mode; returns the log and what the run changed on the counters. */
async function twoRuns(agent: ReturnType<typeof weatherAgent>, options: Record<string, unknown>) {
  const session = new AgentsLogSession();
  const checks = await total(CHECKS_METRIC);
  const violations = await total(VIOLATION_METRIC);
  const sent = suite.server.received.length;
  for (const question of ['Umbrella in Lisbon?', 'And tomorrow?']) {
    await withSession(session.log, () => agents.run(agent, question, { session, ...options }), { mode: 'strict' });
  }
  return {
    log: session.log.deriveMessages(),
    session,
    requests: suite.server.received.slice(sent).map((r) => r.body.input as Item[]),
    checks: (await total(CHECKS_METRIC)) - checks,
    violations: (await total(VIOLATION_METRIC)) - violations,
  };
}

describe('callModelInputFilter', () => {
  it('a filter that drops the user message: the log keeps it, in order, and nothing is appended twice', async () => {
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => ({
      ...modelData,
      input: modelData.input.filter((item, i) => !(i === 0 && item.role === 'user')),
    });
    const run = await twoRuns(weatherAgent(), { callModelInputFilter });
    // The first run's model saw no user message, so it answered without a tool call.
    expect(shape(run.log)).toEqual(['user', 'assistant', 'user', 'assistant:get_weather', 'tool', 'assistant']);
    expect(texts(run.log)).toEqual(['Umbrella in Lisbon?', 'And tomorrow?']);
    expect(run.requests[0]).toEqual([]);
    expect(run.checks).toBe(3);
    expect(run.violations).toBe(0);
    // The next run is handed the log's history, not the filtered one.
    expect((await run.session.getItems()).length).toBe(6);
  });

  it('a filter that drops old tool results: the log keeps every result after its call', async () => {
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => {
      const last = modelData.input.map((item) => item.type).lastIndexOf('function_call_result');
      return { ...modelData, input: modelData.input.filter((item, i) => item.type !== 'function_call_result' || i === last) };
    };
    const run = await twoRuns(weatherAgent(), { callModelInputFilter });
    expect(shape(run.log)).toEqual([
      'user',
      'assistant:get_weather',
      'tool',
      'assistant',
      'user',
      'assistant:get_weather',
      'tool',
      'assistant',
    ]);
    // The second run's last request left out the first run's tool result.
    expect(run.requests.at(-1)!.filter((item) => item.type === 'function_call_output')).toHaveLength(1);
    expect(run.checks).toBe(4);
    expect(run.violations).toBe(0);
  });

  it('a filter that redacts the user message: the log keeps what the user said, once', async () => {
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => ({
      ...modelData,
      input: modelData.input.map((item) => (item.role === 'user' ? { ...item, content: '[redacted]' } : item)),
    });
    const run = await twoRuns(weatherAgent(), { callModelInputFilter });
    expect(shape(run.log)).toEqual([
      'user',
      'assistant:get_weather',
      'tool',
      'assistant',
      'user',
      'assistant:get_weather',
      'tool',
      'assistant',
    ]);
    expect(texts(run.log)).toEqual(['Umbrella in Lisbon?', 'And tomorrow?']);
    expect(run.requests[0]).toEqual([{ role: 'user', content: '[redacted]' }]);
    expect(run.violations).toBe(0);
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
    const before = await total(VIOLATION_METRIC);
    await withSession(session.log, () =>
      agents.run(agent, 'And tomorrow?', { session, callModelInputFilter: callModelInputFilter as never }),
    );
    expect(await total(VIOLATION_METRIC)).toBeGreaterThan(before);
    // What the run did is still appended, in the run's order.
    expect(shape(session.log.deriveMessages())).toEqual([
      'user',
      'assistant:get_weather',
      'tool',
      'assistant',
      'user',
      'assistant:get_weather',
      'tool',
      'assistant',
    ]);
  });

  it('a streamed run with a filter is recorded in order too', async () => {
    const session = new AgentsLogSession();
    const violations = await total(VIOLATION_METRIC);
    const callModelInputFilter = ({ modelData }: { modelData: ModelData }) => ({
      ...modelData,
      input: modelData.input.map((item) => (item.role === 'user' ? { ...item, content: '[redacted]' } : item)),
    });
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
    expect(shape(session.log.deriveMessages())).toEqual(['user', 'assistant:get_weather', 'tool', 'assistant']);
    expect(texts(session.log.deriveMessages())).toEqual(['Umbrella in Lisbon?']);
    expect(await total(VIOLATION_METRIC)).toBe(violations);
  });
});

describe('handoff input filters', () => {
  it("removeAllTools on a handoff: the handoff's result stays after its call, and the next agent's requests are checked", async () => {
    const weather = weatherAgent();
    const triage = new agents.Agent({
      name: 'triage',
      instructions: 'Hand weather questions over.',
      model: 'gpt-test',
      handoffs: [agents.handoff(weather, { inputFilter: removeAllTools as never })],
    });
    const run = await twoRuns(triage, {});
    const oneRun = ['user', 'assistant:transfer_to_weather', 'tool', 'assistant:get_weather', 'tool', 'assistant'];
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
  it('a redacting callModelInputFilter and removeAllTools on a handoff, strict, under --import: the log is the run, in order', async () => {
    const run = await runNode(['--import', 'nous-session-invariant/register', '--input-type=module', '-e', ESM_APP], {
      NODE_ENV: 'test',
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
// run's unfiltered history; the filtered request is a view of it, not a conversation that lost a message.
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

  it('a filter that drops old tool results raises no violation against the implicit log', async () => {
    const run = await runApp({});
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr).not.toMatch(/violation/);
  });

  it("the app's own history bug is still reported", async () => {
    const run = await runApp({ FAULT: 'drop-answer' });
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr.match(/session invariant violation/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/missing_message/);
  });
});
