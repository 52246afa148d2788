// A loopback Gemini provider: `…/models/{model}:generateContent` and
// `:streamGenerateContent?alt=sse`, on the Gemini API paths (`/v1beta/…`)
// and the Vertex AI paths (`/v1/projects/{p}/locations/{l}/publishers/google/…`,
// `/v1/publishers/google/…`). With function declarations offered and a
// user's own text last, it calls the first function (no call id, as the
// Gemini API answers); otherwise it answers with text. Streamed replies come
// in several chunks, the text split across two of them.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGemini {
  /** The `httpOptions.baseUrl` to give `GoogleGenAI`. */
  url: string;
  /** Paths (without the query) and bodies of the requests received, in order. */
  received: Array<{ path: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

type Part = Record<string, unknown>;

/** `callIds`: each function call carries an id (`call_<n>`), as the Gemini API sometimes sends; by default none. */
export async function startFakeGemini(options: { callIds?: boolean } = {}): Promise<FakeGemini> {
  const received: FakeGemini['received'] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      const [path, query] = (req.url ?? '').split('?') as [string, string | undefined];
      received.push({ path, body });
      const match = /\/models\/[^/:]+:(stream)?generateContent$/i.exec(path);
      if (!match) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' } }));
        return;
      }
      const parts = replyParts(++counter, body, options.callIds === true);
      if (match[1]) {
        res.writeHead(200, { 'content-type': query?.includes('alt=sse') ? 'text/event-stream' : 'application/json' });
        const pieces = streamed(parts);
        const chunk = (p: Part[], last: boolean) => ({
          candidates: [{ content: { role: 'model', parts: p }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
          modelVersion: 'gemini-test',
          responseId: `r${counter}`,
        });
        for (let i = 0; i < pieces.length; i++) res.write(`data: ${JSON.stringify(chunk(pieces[i]!, i === pieces.length - 1))}\r\n\r\n`);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
          modelVersion: 'gemini-test',
          responseId: `r${counter}`,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A function call when functions are offered and the last turn is the user's own text, else text. */
function replyParts(id: number, body: Record<string, unknown>, callIds: boolean): Part[] {
  const contents = (body.contents ?? []) as Array<{ role?: string; parts?: Part[] }>;
  const last = contents.at(-1);
  const tools = (body.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>;
  const declared = tools.flatMap((t) => t.functionDeclarations ?? []);
  const answersCall = (last?.parts ?? []).some((p) => p.functionResponse !== undefined);
  if (declared.length > 0 && last?.role === 'user' && !answersCall)
    return [
      {
        functionCall: { name: declared[0]!.name, args: { city: 'Lisbon' }, ...(callIds ? { id: `call_${id}` } : {}) },
        thoughtSignature: `sig${id}`,
      },
    ];
  return [{ text: `Answer ${id}: it is sunny.` }];
}

/** A reply's parts as stream chunks: a text split in two, a function call whole. */
function streamed(parts: Part[]): Part[][] {
  return parts.flatMap((part) => {
    if (typeof part.text !== 'string') return [[part]];
    const half = Math.ceil(part.text.length / 2);
    return [[{ text: part.text.slice(0, half) }], [{ text: part.text.slice(half) }]];
  });
}
