// An agent loop written against `openai` alone: it has never heard of this
// package and keeps its history in a plain array, as most agents do. The demo
// runs it under `--require nous-session-invariant/register` to show what the
// zero-code check sees. Its bug: before each new question it "saves tokens"
// by cutting old tool results short, so the model is sent a history it never
// had. Nothing here imports the package.

import type OpenAI from 'openai';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
];

function getWeather(args: { city?: string }): string {
  return JSON.stringify({ city: args.city ?? 'Lisbon', rain: true, hourly: [12, 13, 13, 14, 15, 15, 14, 13] });
}

/** One user question: call the model until it answers without a tool call. */
async function ask(client: OpenAI, history: ChatMessage[], question: string): Promise<string> {
  history.push({ role: 'user', content: question });
  for (let step = 0; step < 3; step++) {
    const completion = await client.chat.completions.create({ model: 'local-demo', messages: history, tools });
    const reply = completion.choices[0]!.message;
    history.push(reply);
    if (!reply.tool_calls?.length) return reply.content ?? '';
    for (const call of reply.tool_calls) {
      if (call.type !== 'function') continue;
      history.push({ role: 'tool', tool_call_id: call.id, content: getWeather(JSON.parse(call.function.arguments) as { city?: string }) });
    }
  }
  return '(no answer)';
}

/** The bug: old tool results cut to 20 characters, in place, to save tokens. */
function trimToolResults(history: ChatMessage[]): void {
  for (const [i, message] of history.entries()) {
    if (message.role === 'tool' && typeof message.content === 'string' && message.content.length > 20) {
      history[i] = { ...message, content: `${message.content.slice(0, 20)}…` };
    }
  }
}

/** Two questions in one conversation; with `trim`, the history is cut between them. */
export async function runPlainAgent(client: OpenAI, trim: boolean): Promise<string[]> {
  const history: ChatMessage[] = [{ role: 'system', content: 'You are a weather assistant. Use tools.' }];
  const first = await ask(client, history, 'Do I need an umbrella in Lisbon today?');
  if (trim) trimToolResults(history);
  const second = await ask(client, history, 'And in Porto?');
  return [first, second];
}
