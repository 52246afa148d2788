// The OpenAI Agents SDK as the Agents SDK tests use it: loaded through require
// after the instrumentation (as `--require .../register` does), from SDK_ROOT
// when the version matrix points there, talking to the loopback provider.

import { z } from 'zod';
import { requireSdk, type InstrumentedSuite } from './instrumented';

export type AgentsModule = typeof import('@openai/agents');

/** Loads the Agents SDK, with tracing off and the instrumented openai client on the suite's provider (Responses API). */
export function loadAgents(suite: InstrumentedSuite): AgentsModule {
  process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
  const agents = requireSdk('@openai/agents') as AgentsModule;
  agents.setTracingDisabled(true);
  agents.setDefaultOpenAIClient(new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 }));
  agents.setOpenAIAPI('responses');
  return agents;
}

/** An agent with one tool, `get_weather`. */
export function weatherAgent(agents: AgentsModule) {
  const getWeather = agents.tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `{"city":"${city}","rain":true}`,
  });
  return new agents.Agent({ name: 'weather', instructions: 'You are a weather bot.', model: 'gpt-test', tools: [getWeather] });
}
