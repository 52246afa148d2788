// Cohere's v2 chat (`POST /v2/chat`) as the fake provider answers it: with
// tools offered and a user message last, the first tool is called (with a
// tool plan first, as Cohere's models state one); otherwise a text answer.
// Streamed as server-sent events, `message-start` to `message-end`, when
// the request says `stream: true`.

import type { ServerResponse } from 'node:http';

const USAGE = { billed_units: { input_tokens: 10, output_tokens: 2 }, tokens: { input_tokens: 10, output_tokens: 2 } };

export function cohereChat(res: ServerResponse, id: number, body: Record<string, unknown>): void {
  const messages = (body.messages ?? []) as Array<{ role?: string }>;
  const tools = (body.tools ?? []) as Array<{ function?: { name?: string } }>;
  const name = tools.length > 0 && messages.at(-1)?.role === 'user' ? (tools[0]!.function?.name ?? 'tool') : undefined;
  const plan = 'I will look up the weather.';
  const text = `answer ${id}`;
  const call = { id: `call_${id}`, type: 'function', function: { name, arguments: '{"city":"Lisbon"}' } };
  const finish = name ? 'TOOL_CALL' : 'COMPLETE';
  if (body.stream !== true) {
    const message = name
      ? { role: 'assistant', tool_plan: plan, tool_calls: [call] }
      : { role: 'assistant', content: [{ type: 'text', text }] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: `msg_${id}`, finish_reason: finish, message, usage: USAGE }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message-start', {
    id: `msg_${id}`,
    delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
  });
  if (name) {
    for (const piece of [plan.slice(0, 6), plan.slice(6)]) send('tool-plan-delta', { delta: { message: { tool_plan: piece } } });
    send('tool-call-start', { index: 0, delta: { message: { tool_calls: { ...call, function: { name, arguments: '' } } } } });
    for (const piece of [call.function.arguments.slice(0, 5), call.function.arguments.slice(5)])
      send('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: piece } } } } });
    send('tool-call-end', { index: 0 });
  } else {
    send('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const piece of [text.slice(0, 3), text.slice(3)])
      send('content-delta', { index: 0, delta: { message: { content: { text: piece } } } });
    send('content-end', { index: 0 });
  }
  send('message-end', { delta: { finish_reason: finish, usage: USAGE } });
  res.end();
}
