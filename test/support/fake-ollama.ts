// Ollama's own chat API (`POST /api/chat`) as the fake provider answers it:
// with tools offered and a user message last, the first tool is called
// (without an id, as Ollama sends calls); otherwise a text answer. Streamed
// (the API's default, newline-delimited JSON ending with `done: true`) unless
// the request says `stream: false`.

import type { ServerResponse } from 'node:http';

const STATS = { total_duration: 1, load_duration: 1, prompt_eval_count: 10, prompt_eval_duration: 1, eval_count: 2, eval_duration: 1 };

export function ollamaChat(res: ServerResponse, id: number, body: Record<string, unknown>): void {
  const messages = (body.messages ?? []) as Array<{ role?: string }>;
  const tools = (body.tools ?? []) as Array<{ function?: { name?: string } }>;
  const call =
    tools.length > 0 && messages.at(-1)?.role === 'user'
      ? { function: { index: 0, name: tools[0]!.function?.name ?? 'tool', arguments: { city: 'Lisbon' } } }
      : undefined;
  const head = { model: body.model, created_at: '2026-01-01T00:00:00Z' };
  const text = `answer ${id}`;
  const done = { ...head, done: true, done_reason: 'stop', ...STATS };
  if (body.stream === false) {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    const message = call ? { role: 'assistant', content: '', tool_calls: [call] } : { role: 'assistant', content: text };
    res.end(JSON.stringify({ ...done, message }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (value: unknown) => res.write(`${JSON.stringify(value)}\n`);
  if (call) line({ ...head, message: { role: 'assistant', content: '', tool_calls: [call] }, done: false });
  else
    for (const piece of [text.slice(0, 3), text.slice(3)]) line({ ...head, message: { role: 'assistant', content: piece }, done: false });
  line({ ...done, message: { role: 'assistant', content: '' } });
  res.end();
}
