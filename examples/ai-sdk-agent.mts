// A Vercel AI SDK tool loop (generateText, two steps) checked by
// sessionInvariantMiddleware in strict test mode, its steps recorded into the
// log as they happen; then a middleware that drops tool results, caught.
//
//   NODE_ENV=test node --import nous-session-invariant/register --import tsx examples/ai-sdk-agent.mts

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { SessionLog, appendMessage, withSession } from 'nous-session-invariant';
import { recordAiSdkSteps, sessionInvariantMiddleware } from 'nous-session-invariant/ai-sdk';
import { startLocalModel } from './support/local-model.js';

const model = await startLocalModel();
const openai = createOpenAI({ apiKey: 'local-demo', baseURL: model.baseURL });
const getWeather = tool({
  description: 'The weather in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }) => ({ city, rain: true }),
});
const dropToolResults: LanguageModelMiddleware = {
  specificationVersion: 'v4',
  transformParams: async ({ params }) => ({ ...params, prompt: params.prompt.filter((m) => m.role !== 'tool') }),
};

try {
  for (const [name, middleware, shouldStop] of [
    ['faithful', [sessionInvariantMiddleware({ mode: 'strict' })], false],
    ['drops tool results', [dropToolResults, sessionInvariantMiddleware({ mode: 'strict' })], true],
  ] as const) {
    const log = new SessionLog();
    const question = 'Do I need an umbrella in Lisbon?';
    appendMessage(log, { role: 'user', content: question });
    try {
      const result = await withSession(
        log,
        () =>
          generateText({
            model: wrapLanguageModel({ model: openai.chat('local-demo'), middleware: [...middleware] }),
            instructions: 'You are a weather assistant.',
            messages: [{ role: 'user', content: question }],
            tools: { get_weather: getWeather },
            stopWhen: stepCountIs(3),
            onStepEnd: recordAiSdkSteps(log),
            maxRetries: 0,
          }),
        { agentName: 'ai-sdk-weather' },
      );
      console.log(`${name}: ${result.steps.length} steps, answer "${result.text}", log of ${log.count} events`);
      if (shouldStop) process.exitCode = 1; // the invariant should have stopped this run
    } catch (error) {
      console.log(`${name}: stopped by ${(error as Error).name}: ${(error as Error).message}`);
      if (!shouldStop) throw error;
    }
  }
} finally {
  await model.close();
}
