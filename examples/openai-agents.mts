// An OpenAI Agents SDK run whose Session is a SessionLog: the instrumentation
// records each turn into the log as it happens and checks every Responses
// request the runner sends, in strict test mode; two runs, one session.
//
//   NODE_ENV=test OPENAI_AGENTS_DISABLE_TRACING=1 \
//     node --import nous-session-invariant/register --import tsx examples/openai-agents.mts

import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { AgentsLogSession } from 'nous-session-invariant/openai-agents';
import { withSession } from 'nous-session-invariant';
import { startLocalModel } from './support/local-model.js';

const model = await startLocalModel();
setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ apiKey: 'local-demo', baseURL: model.baseURL, maxRetries: 0 }));
setOpenAIAPI('responses');

const agent = new Agent({
  name: 'weather',
  instructions: 'You are a weather assistant.',
  model: 'local-demo',
  tools: [
    tool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => JSON.stringify({ city, rain: true }),
    }),
  ],
});

try {
  const session = new AgentsLogSession();
  for (const question of ['Do I need an umbrella in Lisbon?', 'And tomorrow?']) {
    const result = await withSession(session.log, () => run(agent, question, { session }), { agentName: 'agents-weather', mode: 'strict' });
    console.log(`"${question}" -> "${String(result.finalOutput)}"`);
  }
  console.log(
    `session log: ${session.log.count} events, fold ${session.log
      .deriveMessages()
      .map((m) => m.role)
      .join(', ')}`,
  );
} finally {
  await model.close();
}
