// A tiny OpenAI-compatible server on 127.0.0.1 for the examples, speaking
// Chat Completions and Responses: offered tools, it asks for the first one
// once, then answers from its result.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Item {
  role?: string;
  type?: string;
  content?: unknown;
  output?: unknown;
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
      const request = JSON.parse(body || '{}') as {
        model?: string;
        messages?: Item[];
        input?: Item[] | string;
        tools?: Array<{ name?: string; function?: { name?: string } }>;
      };
      const id = ++calls;
      const tool = request.tools?.[0]?.function?.name ?? request.tools?.[0]?.name ?? 'get_weather';
      const answer = (result: unknown) => `Forecast says ${String(result)}: take an umbrella.`;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.endsWith('/responses')) {
        const last = Array.isArray(request.input) ? request.input.at(-1) : { role: 'user' };
        const output =
          last?.type === 'function_call_output'
            ? [
                {
                  type: 'message',
                  id: `msg_${id}`,
                  status: 'completed',
                  role: 'assistant',
                  content: [{ type: 'output_text', text: answer(last.output), annotations: [] }],
                },
              ]
            : [
                {
                  type: 'function_call',
                  id: `fc_${id}`,
                  call_id: `call_${id}`,
                  name: tool,
                  arguments: '{"city":"Lisbon"}',
                  status: 'completed',
                },
              ];
        res.end(
          JSON.stringify({
            id: `resp_${id}`,
            object: 'response',
            created_at: Math.floor(Date.now() / 1000),
            status: 'completed',
            model: request.model,
            output,
            tools: [],
            tool_choice: 'auto',
            parallel_tool_calls: true,
          }),
        );
        return;
      }
      const last = request.messages?.at(-1);
      const message =
        last?.role === 'tool'
          ? { role: 'assistant', content: answer(last.content) }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: tool, arguments: '{"city":"Lisbon"}' } }],
            };
      res.end(
        JSON.stringify({
          id: `chatcmpl-${id}`,
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
