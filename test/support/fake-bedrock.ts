// A loopback Bedrock Runtime speaking Converse: `POST /model/{modelId}/converse`
// (a JSON reply) and `/converse-stream` (the reply as an
// `application/vnd.amazon.eventstream` stream of binary-framed events, encoded
// with the AWS SDK's own codec from the SDK project under test), over
// cleartext HTTP/2 (the newer clients' default handler) on one port and
// HTTP/1.1 (the older ones') on another. With tools
// offered and a user's own text last, the model calls the first tool (a
// `toolUse` block with its `toolUseId`); otherwise it answers with text.
// Streamed text comes in two deltas, a tool call's input in two JSON pieces.

import { createRequire } from 'node:module';
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

/** The project the Bedrock tests load the AWS SDK from: test/versions/bedrock-3.1178, the highest version tested. */
export const BEDROCK_ROOT = resolve(__dirname, '../versions/bedrock-3.1178');

export interface FakeBedrock {
  /** The client's `endpoint`, over cleartext HTTP/2 (prior knowledge), as the newer clients' default handler speaks. */
  url: string;
  /** The same over HTTP/1.1, as the older clients' default handler speaks. */
  http1Url: string;
  /** Paths and bodies of the requests received, in order. */
  received: Array<{ path: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

type Block = Record<string, unknown>;
/** What the handler uses of an HTTP/1.1 or HTTP/2 response (their own types overload these differently). */
interface Reply {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): unknown;
  end(body?: string): unknown;
}
type HeaderValue = { type: 'string'; value: string };
interface EventStreamCodec {
  encode(message: { headers: Record<string, HeaderValue>; body: Uint8Array }): Uint8Array;
}

/** `sdkRoot`: the SDK project whose event-stream codec frames the streamed replies. */
export async function startFakeBedrock(sdkRoot = BEDROCK_ROOT): Promise<FakeBedrock> {
  const sdk = createRequire(resolve(sdkRoot, 'package.json'));
  const { EventStreamCodec: Codec } = sdk('@smithy/eventstream-codec') as {
    EventStreamCodec: new (toUtf8: (bytes: Uint8Array) => string, fromUtf8: (text: string) => Uint8Array) => EventStreamCodec;
  };
  const codec = new Codec(
    (bytes) => Buffer.from(bytes).toString('utf8'),
    (text) => new Uint8Array(Buffer.from(text, 'utf8')),
  );
  const received: FakeBedrock['received'] = [];
  let counter = 0;
  const handle = (req: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse): void => {
    const res = response as Reply;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      const path = (req.url ?? '').split('?')[0]!;
      received.push({ path, body });
      const match = /^\/model\/[^/]+\/(converse|converse-stream)$/.exec(path);
      if (req.method !== 'POST' || !match) {
        res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
        res.end(JSON.stringify({ message: `no route ${path}` }));
        return;
      }
      const content = replyContent(++counter, body);
      const stopReason = content.some((b) => b.toolUse !== undefined) ? 'tool_use' : 'end_turn';
      const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
      if (match[1] === 'converse') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': `req-${counter}` });
        res.end(JSON.stringify({ output: { message: { role: 'assistant', content } }, stopReason, usage, metrics: { latencyMs: 1 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': `req-${counter}` });
      for (const [type, event] of streamed(content, stopReason, usage)) {
        const headers: Record<string, HeaderValue> = {
          ':message-type': { type: 'string', value: 'event' },
          ':event-type': { type: 'string', value: type },
          ':content-type': { type: 'string', value: 'application/json' },
        };
        res.write(codec.encode({ headers, body: new Uint8Array(Buffer.from(JSON.stringify(event), 'utf8')) }));
      }
      res.end();
    });
  };
  const http1 = createHttp1Server(handle);
  const http2 = createHttp2Server(handle);
  await Promise.all([http1, http2].map((server) => new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen))));
  const portOf = (server: { address(): unknown }): number => (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${portOf(http2)}`,
    http1Url: `http://127.0.0.1:${portOf(http1)}`,
    received,
    close: async () => {
      http1.closeAllConnections();
      await new Promise<void>((resolveClose) => http2.close(() => resolveClose()));
      await new Promise<void>((resolveClose) => http1.close(() => resolveClose()));
    },
  };
}

/** A tool call when tools are offered and the last turn is the user's own text, else text. */
function replyContent(id: number, body: Record<string, unknown>): Block[] {
  const messages = (body.messages ?? []) as Array<{ role?: string; content?: Block[] }>;
  const last = messages.at(-1);
  const tools = ((body.toolConfig as { tools?: Array<{ toolSpec?: { name: string } }> } | undefined)?.tools ?? []).flatMap((t) =>
    t.toolSpec ? [t.toolSpec] : [],
  );
  const answersCall = (last?.content ?? []).some((b) => b.toolResult !== undefined);
  if (tools.length > 0 && last?.role === 'user' && !answersCall)
    return [{ toolUse: { toolUseId: `tooluse_${id}`, name: tools[0]!.name, input: { city: 'Lisbon' } } }];
  return [{ text: `Answer ${id}: it is sunny.` }];
}

/** A reply as ConverseStream events: a text block in two deltas, a tool call opened, its input in two pieces, closed. */
function streamed(content: Block[], stopReason: string, usage: Record<string, number>): Array<[string, Record<string, unknown>]> {
  const events: Array<[string, Record<string, unknown>]> = [['messageStart', { role: 'assistant' }]];
  content.forEach((block, contentBlockIndex) => {
    if (typeof block.text === 'string') {
      const half = Math.ceil(block.text.length / 2);
      events.push(['contentBlockDelta', { contentBlockIndex, delta: { text: block.text.slice(0, half) } }]);
      events.push(['contentBlockDelta', { contentBlockIndex, delta: { text: block.text.slice(half) } }]);
    } else {
      const { toolUseId, name, input } = block.toolUse as { toolUseId: string; name: string; input: unknown };
      const json = JSON.stringify(input);
      const half = Math.ceil(json.length / 2);
      events.push(['contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId, name } } }]);
      events.push(['contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: json.slice(0, half) } } }]);
      events.push(['contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: json.slice(half) } } }]);
    }
    events.push(['contentBlockStop', { contentBlockIndex }]);
  });
  events.push(['messageStop', { stopReason }]);
  events.push(['metadata', { usage, metrics: { latencyMs: 1 } }]);
  return events;
}
