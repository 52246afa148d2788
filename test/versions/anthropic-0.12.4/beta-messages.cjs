// An unmodified app on @anthropic-ai/sdk 0.12.4, where the Messages API is
// `client.beta.messages` and the client calls node-fetch: the tool loop of
// test/fixtures/zero-code/agent-loop.cjs, its history bugs from faults.cjs
// (FAULT=...). It never imports nous-session-invariant. Not streamed: this
// version's MessageStream drops a tool call's input_json_delta, so a streamed
// tool call comes back with empty input, which no correct loop could re-send.
const Anthropic = require('@anthropic-ai/sdk');
const { withFault, fault } = require('../../fixtures/zero-code/faults.cjs');
const { main, runAgent } = require('../../fixtures/zero-code/agent-loop.cjs');

const client = new Anthropic({ apiKey: 'test-key', baseURL: process.env.FAKE_ANTHROPIC_URL, maxRetries: 0 });
const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
const isResults = (m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result');
const shape = {
  isUser: (m) => m.role === 'user' && !isResults(m),
  isResult: isResults,
  truncate: (m) => ({ ...m, content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: b.content.slice(0, 5) } : b)) }),
  fakeReply: () => ({ role: 'assistant', content: 'As promised, here is your refund.' }),
};

main(() =>
  runAgent({
    user: (content) => ({ role: 'user', content }),
    async send(messages) {
      const reply = await client.beta.messages.create({
        model: 'claude-test',
        max_tokens: 100,
        system: 'You are a weather assistant.',
        tools,
        messages: withFault(messages, fault, shape),
      });
      const calls = reply.content.filter((b) => b.type === 'tool_use');
      const results = calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: '{"rain":true,"temperature":14}' }));
      return {
        keep: [{ role: 'assistant', content: reply.content }],
        results: results.length > 0 ? [{ role: 'user', content: results }] : [],
      };
    },
  }),
);
