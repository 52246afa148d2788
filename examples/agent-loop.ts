// An agent loop (tool call, tool result, final answer) run twice against a
// local OpenAI-compatible server: once with a request builder that sends the
// log's fold, once with a buggy one that drops the tool result on the way.
// Then the zero-code case: an agent that never imports this package
// (examples/plain-agent.ts), run once as written and once with a bug that
// cuts old tool results short; with no log bound, the package checks it
// against the conversation the model has already been sent.
//
//   node --require nous-session-invariant/register --import tsx examples/agent-loop.ts
//
// With no OTLP endpoint configured, the violations and the counters are
// printed to the console; set OTEL_EXPORTER_OTLP_ENDPOINT to export them.
// DEMO_BUILDERS=buggy runs only the buggy builder (and no plain agent); DEMO_KEEP_ALIVE=1 keeps the
// process up afterwards (for a Prometheus scrape) until it gets a signal.

import OpenAI from 'openai';
import { SessionLog, appendMessage, withSession, type Message } from 'nous-session-invariant';
import { fromOpenAIChat, toOpenAIChat } from 'nous-session-invariant/adapters';
import { runPlainAgent } from './plain-agent';
import { startLocalModel } from './support/local-model';

type RequestBuilder = (log: SessionLog) => Message[];

/** The invariant by construction: the request is the fold. */
const correctBuilder: RequestBuilder = (log) => log.deriveMessages();

/** A builder with a bug: it "trims" tool results before sending. */
const buggyBuilder: RequestBuilder = (log) => log.deriveMessages().filter((m) => m.role !== 'tool');

const tools = {
  get_weather: (args: { city: string }) => JSON.stringify({ city: args.city, rain: true }),
};

async function runAgent(client: OpenAI, log: SessionLog, buildRequest: RequestBuilder): Promise<string> {
  log.append('turn_start', {});
  for (let step = 0; step < 3; step++) {
    log.append('step_start', { step });
    const completion = await client.chat.completions.create({
      model: 'local-demo',
      messages: toOpenAIChat(buildRequest(log)),
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
    });
    const reply = fromOpenAIChat([completion.choices[0]!.message])[0]!;
    appendMessage(log, reply);
    for (const call of reply.toolCalls ?? []) {
      log.append('tool_call', { id: call.id, name: call.name });
      const result = tools.get_weather(JSON.parse(String(call.arguments)) as { city: string });
      appendMessage(log, { role: 'tool', content: result, toolCallId: call.id, name: call.name });
    }
    log.append('step_end', { step });
    if ((reply.toolCalls ?? []).length === 0) {
      log.append('turn_end', {});
      return typeof reply.content === 'string' ? reply.content : '';
    }
  }
  log.append('turn_end', { reason: 'step limit' });
  return '(no answer)';
}

async function main(): Promise<void> {
  const model = await startLocalModel();
  const client = new OpenAI({ apiKey: 'local-demo', baseURL: model.baseURL, maxRetries: 0 });
  const builders = [
    ['correct builder', correctBuilder],
    ['buggy builder', buggyBuilder],
  ] as const;
  const only = process.env.DEMO_BUILDERS;
  try {
    for (const [name, builder] of builders.filter(([n]) => !only || n.startsWith(only))) {
      const log = new SessionLog();
      log.append('system_message', { content: 'You are a weather assistant. Use tools.' });
      log.append('user_message', { content: 'Do I need an umbrella in Lisbon today?' });
      const answer = await withSession(log, () => runAgent(client, log, builder), { agentName: 'weather-agent' });
      console.log(`${name}: answer "${answer}" after ${log.count} log events`);
    }
    if (!only) {
      for (const trim of [false, true]) {
        const answers = await runPlainAgent(client, trim);
        console.log(`unmodified agent, ${trim ? 'trimming old tool results' : 'as written'}: ${answers.length} answers`);
      }
    }
  } finally {
    await model.close();
  }
  if (process.env.DEMO_KEEP_ALIVE) setInterval(() => {}, 60_000);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
