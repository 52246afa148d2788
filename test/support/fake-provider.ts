// A loopback HTTP server that answers like the OpenAI and Anthropic APIs (and Ollama's and Cohere's: fake-ollama.ts, fake-cohere.ts),
// records every request it receives, and can fail on demand.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cohereChat } from './fake-cohere';
import { ollamaChat } from './fake-ollama';

export interface ReceivedRequest {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

export interface FakeProvider {
  url: string;
  openaiBaseURL: string;
  anthropicBaseURL: string;
  received: ReceivedRequest[];
  /** Answer the next `n` requests with HTTP 500 (the SDKs retry those). */
  failNext(n: number): void;
  /** Make the next chat completion call the given tool instead of answering. */
  callToolNext(name: string, args: Record<string, unknown>): void;
  /** Streams asked for with model `ENDLESS_MODEL`: the number still being written, and the number the client closed. */
  endless: { open: number; closed: number };
  /** Answer the next Anthropic request that continues a thread with 404 `thread_not_found` (the SDK then replays the whole history). */
  loseThreadNext(): void;
  close(): Promise<void>;
}

/** A streamed chat completion or message for this model never ends: a delta every few milliseconds until the client hangs up. */
export const ENDLESS_MODEL = 'endless';

/** How the fake provider answers, where real models differ. */
export interface FakeProviderOptions {
  /** A Responses tool call comes after a short text message item ("Let me check."), as many models answer. */
  responsesPreamble?: boolean;
  /**
   * Every chat completion and message says the same (one tool call id, one text), as a model asked alike answers
   * alike, and as a scripted provider does.
   */
  sameReplies?: boolean;
}

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const received: ReceivedRequest[] = [];
  let failures = 0;
  let toolCall: { name: string; args: Record<string, unknown> } | undefined;
  let counter = 0;
  const endless = { open: 0, closed: 0 };
  let loseThread = false;
  /** Ids of the Responses this provider answered: `previous_response_id` must name one of them. */
  const responseIds = new Set<string>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      const path = (req.url ?? '').split('?')[0]!;
      received.push({ path, body, headers: req.headers });
      if (failures > 0) {
        failures--;
        return json(res, 500, { error: { message: 'injected failure', type: 'server_error' } });
      }
      const id = ++counter;
      if (body.model === ENDLESS_MODEL && body.stream) return endlessStream(req, res, path, id, endless);
      if (path.endsWith('/v1/chat/completions')) {
        // Groq's path is /openai/v1/chat/completions.
        // With tools offered and a user message last, call the first tool once; answer after its result.
        const messages = (body.messages ?? []) as Array<{ role: string }>;
        const tools = (body.tools ?? []) as Array<{ function?: { name?: string } }>;
        const autoCall =
          tools.length > 0 && messages.at(-1)?.role === 'user'
            ? { name: tools[0]!.function?.name ?? 'tool', args: { city: 'Lisbon' } }
            : undefined;
        const call = toolCall ?? autoCall;
        toolCall = undefined;
        const said = options.sameReplies === true ? 0 : id;
        return body.stream ? chatStream(res, said, body, call) : json(res, 200, chatCompletion(said, body, call));
      }
      if (path === '/v1/responses') {
        const previous = body.previous_response_id;
        if (typeof previous === 'string' && !responseIds.has(previous)) {
          return json(res, 400, {
            error: {
              message: `Previous response with id '${previous}' not found.`,
              type: 'invalid_request_error',
              code: 'previous_response_not_found',
            },
          });
        }
        responseIds.add(`resp_${id}`);
        const preamble = options.responsesPreamble === true;
        return body.stream ? responseStream(res, id, body, preamble) : json(res, 200, response(id, body, preamble));
      }
      if (path === '/v1/messages') {
        const thread = body.thread as { type?: string } | undefined;
        if (loseThread && thread?.type === 'continue') {
          loseThread = false;
          return json(res, 404, {
            type: 'error',
            error: { type: 'not_found_error', message: 'No usable Thread state was found.', details: { error_code: 'thread_not_found' } },
          });
        }
        // With tools offered and a user's own message last (not tool results), call the first tool.
        const last = ((body.messages ?? []) as Array<{ role: string; content: unknown }>).at(-1);
        const tools = (body.tools ?? []) as Array<{ name?: string }>;
        const results = Array.isArray(last?.content) && (last.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result');
        const call =
          tools.length > 0 && last?.role === 'user' && !results ? { name: tools[0]!.name ?? 'tool', args: { city: 'Lisbon' } } : undefined;
        const said = options.sameReplies === true ? 0 : id;
        return body.stream ? anthropicStream(res, said, body, call) : json(res, 200, anthropicMessage(said, body, call));
      }
      if (path === '/api/chat') return ollamaChat(res, options.sameReplies === true ? 0 : id, body);
      if (path === '/v2/chat') return cohereChat(res, options.sameReplies === true ? 0 : id, body);
      json(res, 404, { error: { message: `no route ${path}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    received,
    failNext: (n) => {
      failures = n;
    },
    callToolNext: (name, args) => {
      toolCall = { name, args };
    },
    endless,
    loseThreadNext: () => {
      loseThread = true;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A chat completion (or, on /v1/messages, a message) whose text never ends; counts the streams open and those the client closed. */
function endlessStream(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  id: number,
  endless: { open: number; closed: number },
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const anthropic = path === '/v1/messages';
  const chunk = anthropic
    ? `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'more ' } })}\n\n`
    : `data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: ENDLESS_MODEL, choices: [{ index: 0, delta: { content: 'more ' }, finish_reason: null }] })}\n\n`;
  if (anthropic) {
    const message = { ...anthropicMessage(id, { model: ENDLESS_MODEL }), content: [], stop_reason: null };
    res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message })}\n\n`);
    res.write(
      `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
    );
  }
  endless.open++;
  const timer = setInterval(() => res.write(chunk), 5);
  req.socket.once('close', () => {
    clearInterval(timer);
    endless.open--;
    endless.closed++;
  });
}

function json(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}

/** How many choices a Chat Completions request asks for (`n`, default 1). */
function choiceCount(body: Record<string, unknown>): number {
  return typeof body.n === 'number' && body.n > 1 ? Math.min(body.n, 8) : 1;
}

/** Choice `index`'s text: `answer <id>` for the first, `answer <id>.<index>` for the others (`n` > 1). */
function choiceText(id: number, index: number): string {
  return index === 0 ? `answer ${id}` : `answer ${id}.${index}`;
}

/** Choice `index`'s call id: each choice of `n` > 1 calls the tool under an id of its own. */
function choiceCallId(id: number, index: number): string {
  return index === 0 ? `call_${id}` : `call_${id}_${index}`;
}

function chatCompletion(id: number, body: Record<string, unknown>, call?: { name: string; args: unknown }) {
  const choices = Array.from({ length: choiceCount(body) }, (_, index) => {
    const message = call
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: choiceCallId(id, index), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } },
          ],
        }
      : { role: 'assistant', content: choiceText(id, index) };
    return { index, message, finish_reason: call ? 'tool_calls' : 'stop', logprobs: null };
  });
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body.model,
    choices,
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  };
}

function chatStream(res: ServerResponse, id: number, body: Record<string, unknown>, call?: { name: string; args: unknown }): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const base = { id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
  const deltasOf = (index: number) =>
    call
      ? [
          {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: choiceCallId(id, index),
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.args) },
              },
            ],
          },
        ]
      : [{ role: 'assistant', content: 'ans' }, { content: choiceText(id, index).slice(3) }];
  const indices = Array.from({ length: choiceCount(body) }, (_, index) => index);
  // With n > 1 the choices' chunks interleave, as the API streams them.
  for (let step = 0; step < deltasOf(0).length; step++) {
    for (const index of indices) {
      const delta = deltasOf(index)[step]!;
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index, delta, finish_reason: null }] })}\n\n`);
    }
  }
  for (const index of indices)
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index, delta: {}, finish_reason: call ? 'tool_calls' : 'stop' }] })}\n\n`);
  res.end('data: [DONE]\n\n');
}

function response(id: number, body: Record<string, unknown>, preamble = false) {
  // With tools offered and a user message last, call the first tool; answer after its output.
  const input = Array.isArray(body.input) ? (body.input as Array<{ role?: string; type?: string }>) : [];
  const tools = (body.tools ?? []) as Array<{ name?: string }>;
  const last = input.at(-1);
  const callTool = tools.length > 0 && (typeof body.input === 'string' || last?.role === 'user');
  const said = {
    type: 'message',
    id: `msg_${id}`,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }],
  };
  const output = callTool
    ? [
        ...(preamble ? [said] : []),
        {
          type: 'function_call',
          id: `fc_${id}`,
          call_id: `call_${id}`,
          name: tools[0]!.name,
          arguments: '{"city":"Lisbon"}',
          status: 'completed',
        },
      ]
    : [
        {
          type: 'message',
          id: `msg_${id}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: `answer ${id}`, annotations: [] }],
        },
      ];
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: body.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: {
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function anthropicMessage(id: number, body: Record<string, unknown>, call?: { name: string; args: unknown }) {
  return {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: call ? [{ type: 'tool_use', id: `toolu_${id}`, name: call.name, input: call.args }] : [{ type: 'text', text: `answer ${id}` }],
    stop_reason: call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2 },
  };
}

function anthropicStream(res: ServerResponse, id: number, body: Record<string, unknown>, call?: { name: string; args: unknown }): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: { ...anthropicMessage(id, body), content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 0 } },
  });
  if (call) {
    const json = JSON.stringify(call.args);
    send('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: `toolu_${id}`, name: call.name, input: {} },
    });
    send('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) },
    });
    send('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: json.slice(5) },
    });
  } else {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `answer ${id}` } });
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 2 },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function responseStream(res: ServerResponse, id: number, body: Record<string, unknown>, preamble = false): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const full = response(id, body, preamble);
  let sequence = 0;
  const send = (data: Record<string, unknown>) =>
    res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`);
  send({ type: 'response.created', response: { ...full, status: 'in_progress', output: [] } });
  full.output.forEach((item, index) => {
    send({ type: 'response.output_item.added', output_index: index, item });
    send({ type: 'response.output_item.done', output_index: index, item });
  });
  send({ type: 'response.completed', response: full });
  res.end();
}
