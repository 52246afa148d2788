// An unmodified LangChain.js agent on ChatAnthropic (@langchain/anthropic 1.5,
// which bundles @anthropic-ai/sdk 0.122): a hand-written tool loop over
// ChatAnthropic.bindTools against the loopback provider, the loop of
// test/fixtures/zero-code/agent-loop.cjs, its history bugs from faults.cjs
// (FAULT=...). It never imports nous-session-invariant. STREAM=1 streams.
const { ChatAnthropic } = require('@langchain/anthropic');
const { AIMessage, HumanMessage, SystemMessage, ToolMessage } = require('@langchain/core/messages');
const { tool } = require('@langchain/core/tools');
const { withFault, fault } = require('../../fixtures/zero-code/faults.cjs');
const { main, runAgent } = require('../../fixtures/zero-code/agent-loop.cjs');

const getWeather = tool(async ({ city }) => JSON.stringify({ city, rain: true, temperature: 14 }), {
  name: 'get_weather',
  description: 'The weather in a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});
const model = new ChatAnthropic({
  model: 'claude-test',
  apiKey: 'test-key',
  anthropicApiUrl: process.env.FAKE_ANTHROPIC_URL,
  maxRetries: 0,
  maxTokens: 100,
  streaming: process.env.STREAM === '1',
});
const system = new SystemMessage('You are a weather assistant.');
const shape = {
  isUser: (m) => HumanMessage.isInstance(m),
  isResult: (m) => ToolMessage.isInstance(m),
  truncate: (m) => new ToolMessage({ content: String(m.content).slice(0, 5), tool_call_id: m.tool_call_id, name: m.name }),
  fakeReply: () => new AIMessage('As promised, here is your refund.'),
};

main(() => {
  const bound = model.bindTools([getWeather]);
  return runAgent({
    user: (content) => new HumanMessage(content),
    async send(history) {
      const message = await bound.invoke([system, ...withFault(history, fault, shape)]);
      const results = [];
      for (const call of message.tool_calls ?? []) results.push(await getWeather.invoke(call));
      return { keep: [message], results };
    },
  });
});
