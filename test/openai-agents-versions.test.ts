// An Agents SDK outside the supported range (@openai/agents 0.18, installed in
// test/versions/agents-0.18): its runs on an AgentsLogSession are neither
// recorded nor checked, said once, even next to a supported copy in the same
// process (docs/behaviour.md §5.5). Loaded the way an app loads it, from the
// fixture's own node_modules.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../src/telemetry/semconv';
import { VIOLATION_METRIC, setLogger, withSession } from '../src/index';
import { AgentsLogSession } from '../src/openai-agents';
import { useInstrumentedProvider } from './support/instrumented';

type AgentsModule = typeof import('@openai/agents');

const FIXTURE = join(__dirname, 'versions/agents-0.18');
const installed = existsSync(join(FIXTURE, 'node_modules/@openai/agents-core/package.json'));

const suite = useInstrumentedProvider({ mode: 'warn' });
const warnings: string[] = [];
let outOfRange: AgentsModule;
let supported: AgentsModule;

function setUp(agents: AgentsModule): AgentsModule {
  agents.setTracingDisabled(true);
  agents.setDefaultOpenAIClient(new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 }));
  agents.setOpenAIAPI('responses');
  return agents;
}

beforeAll(() => {
  setLogger({ warn: (message) => warnings.push(message) });
  process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
  if (!installed) return;
  // The out-of-range copy first, then a supported one: the later load must not make the first one's runs checked.
  outOfRange = setUp(createRequire(join(FIXTURE, 'package.json'))('@openai/agents') as AgentsModule);
  supported = setUp(createRequire(__filename)('@openai/agents') as AgentsModule);
});

function weatherAgent(agents: AgentsModule) {
  const getWeather = agents.tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    strict: true,
    execute: async () => '{"rain":true}',
  });
  return new agents.Agent({ name: 'weather', instructions: 'You are a weather bot.', model: 'gpt-test', tools: [getWeather] });
}

async function twoRuns(agents: AgentsModule) {
  const session = new AgentsLogSession();
  const checks = await suite.env.otel.total(CHECKS_METRIC);
  const violations = await suite.env.otel.total(VIOLATION_METRIC);
  const agent = weatherAgent(agents);
  for (const question of ['Umbrella in Lisbon?', 'And tomorrow?']) {
    const result = await withSession(session.log, () => agents.run(agent, question, { session }), { mode: 'strict' });
    expect(String(result.finalOutput)).toMatch(/^answer/);
  }
  return {
    roles: session.log.deriveMessages().map((m) => m.role),
    checks: (await suite.env.otel.total(CHECKS_METRIC)) - checks,
    violations: (await suite.env.otel.total(VIOLATION_METRIC)) - violations,
  };
}

const ONE_RUN = ['user', 'assistant', 'tool', 'assistant'];

describe('@openai/agents outside the supported range', () => {
  it('has its fixture installed (npm ci --prefix test/versions/agents-0.18)', () => {
    expect(installed, 'run npm ci --prefix test/versions/agents-0.18').toBe(true);
    const core = JSON.parse(readFileSync(join(FIXTURE, 'node_modules/@openai/agents-core/package.json'), 'utf8')) as { version: string };
    expect(core.version).toBe('0.18.0');
  });

  it('its runs are neither recorded nor checked, with no violation, even with a supported copy loaded after it', async () => {
    const run = await twoRuns(outOfRange);
    expect(run.violations).toBe(0);
    expect(run.checks).toBe(0);
    // The runner's own addItems still keeps the log, in the run's order.
    expect(run.roles).toEqual([...ONE_RUN, ...ONE_RUN]);
  });

  it('says so once, by version', async () => {
    await twoRuns(outOfRange);
    const about = warnings.filter((w) => /agents/i.test(w));
    expect(about).toHaveLength(1);
    expect(about[0]).toMatch(/@openai\/agents-core 0\.18\.0 is outside the supported range .*neither recorded nor checked/);
  });

  it('the supported copy in the same process is still recorded and checked', async () => {
    const run = await twoRuns(supported);
    expect(run.violations).toBe(0);
    expect(run.checks).toBe(4);
    expect(run.roles).toEqual([...ONE_RUN, ...ONE_RUN]);
  });
});
