// A tiny OpenAI-compatible chat completions server on 127.0.0.1 for the
// examples: it asks for the weather tool once, then answers from its result.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ChatMessage {
  role: string;
  content?: unknown;
}

export interface LocalModel {
  baseURL: string;
  close(): Promise<void>;
}

export async function startLocalModel(): Promise<LocalModel> {
  let calls = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const request = JSON.parse(body || '{}') as { model?: string; messages?: ChatMessage[] };
      const last = request.messages?.at(-1);
      const message =
        last?.role === 'tool'
          ? { role: 'assistant', content: `Forecast says ${String(last.content)}: take an umbrella.` }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: `call_${++calls}`, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }],
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${calls}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: request.model,
          choices: [{ index: 0, message, finish_reason: message.content === null ? 'tool_calls' : 'stop', logprobs: null }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
