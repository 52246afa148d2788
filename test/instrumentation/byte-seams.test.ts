// With no log bound, the SDK client hook checks a request at the client's
// byte seam, with the body the SDK serialised (openai's prepareRequest, an
// @anthropic-ai/sdk client middleware); with a log bound, where it reads the
// options, as before. Observed on the real implicit log (a spy that calls
// through) and the real loopback provider.

import { describe, expect, it, vi } from 'vitest';
import { SessionLog, withSession } from '../../src/index';
import { ImplicitLogs } from '../../src/request-path/implicit/implicit-logs';
import type { ModelRequest } from '../../src/request-path/model-request';
import { useInstrumentedProvider } from '../support/instrumented';

const suite = useInstrumentedProvider({ mode: 'warn' });

/** The requests the implicit log checks while `run` runs. */
async function implicitChecks(run: () => Promise<unknown>): Promise<ModelRequest[]> {
  const spy = vi.spyOn(ImplicitLogs.prototype, 'check');
  try {
    await run();
    return spy.mock.calls.map(([request]) => request);
  } finally {
    spy.mockRestore();
  }
}

describe('the byte seams', () => {
  it('openai Chat Completions: checked with the body as sent', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    const sent = suite.server.received.length;
    const [request] = await implicitChecks(() =>
      client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Byte seam, chat. Ж' }] }),
    );
    expect(request?.body?.format).toBe('openai.chat');
    expect(JSON.parse(request!.body!.text)).toEqual(suite.server.received[sent]!.body);
  });

  it('openai Responses: checked with the body as sent', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    const sent = suite.server.received.length;
    const [request] = await implicitChecks(() =>
      client.responses.create({ model: 'gpt-test', input: [{ role: 'user', content: 'Byte seam, responses.' }] }),
    );
    expect(request?.body?.format).toBe('openai.responses');
    expect(JSON.parse(request!.body!.text)).toEqual(suite.server.received[sent]!.body);
  });

  it('@anthropic-ai/sdk Messages: checked in a client middleware with the body as sent, after the app middleware', async () => {
    const seen: string[] = [];
    const client = new suite.env.anthropic.Anthropic({
      apiKey: 'k',
      baseURL: suite.server.anthropicBaseURL,
      middleware: [
        async (request: { body?: unknown }, next: (request: unknown) => Promise<Response>) => {
          seen.push(String(request.body));
          return next(request);
        },
      ],
    } as never);
    const sent = suite.server.received.length;
    const [request] = await implicitChecks(() =>
      client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Byte seam, anthropic.' }] }),
    );
    expect(request?.body?.format).toBe('anthropic.messages');
    expect(JSON.parse(request!.body!.text)).toEqual(suite.server.received[sent]!.body);
    expect(seen).toEqual([request!.body!.text]);
  });

  it('a retried attempt is not checked again at the byte seam (openai and @anthropic-ai/sdk)', async () => {
    const anthropic = new suite.env.anthropic.Anthropic({ apiKey: 'k', baseURL: suite.server.anthropicBaseURL, maxRetries: 2 });
    const openai = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL, maxRetries: 2 });
    for (const send of [
      () =>
        anthropic.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Retried, anthropic.' }] }),
      () => openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Retried, openai.' }] }),
    ]) {
      const sent = suite.server.received.length;
      suite.server.failNext(1);
      const checks = await implicitChecks(send);
      expect(suite.server.received.length - sent).toBe(2);
      expect(checks).toHaveLength(1);
      expect(checks[0]!.body).toBeDefined();
    }
  });

  it('with a log bound, the request is checked where the options are read, not by the implicit log', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    const log = new SessionLog();
    log.append('user_message', { content: 'Bound.' });
    const checks = await implicitChecks(() =>
      withSession(log, () => client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Bound.' }] })),
    );
    expect(checks).toEqual([]);
  });

  it('a stateful request never reaches the byte path: the guards come first, and it is followed from its previous reply', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    const byBytes = vi.spyOn(ImplicitLogs.prototype, 'checkBytes');
    const followed = vi.spyOn(ImplicitLogs.prototype, 'continueHeld');
    try {
      const input = [{ role: 'user' as const, content: 'Stateful after bytes.' }];
      const first = await client.responses.create({ model: 'gpt-test', input });
      expect(byBytes).toHaveBeenCalledTimes(1);
      await client.responses.create({
        model: 'gpt-test',
        previous_response_id: first.id,
        input: [{ role: 'user', content: 'And then?' }],
      });
      expect(byBytes).toHaveBeenCalledTimes(1);
      expect(followed).toHaveBeenCalledTimes(1);
      expect(followed.mock.calls[0]![0].body?.format).toBe('openai.responses');
    } finally {
      byBytes.mockRestore();
      followed.mockRestore();
    }
  });

  it("@anthropic-ai/sdk: whether a client's middleware list carries the byte check is decided once per client", async () => {
    let calls = 0;
    class Counting extends suite.env.anthropic.Anthropic {
      override backendMiddleware(): ReturnType<InstanceType<typeof suite.env.anthropic.Anthropic>['backendMiddleware']> {
        calls++;
        return super.backendMiddleware();
      }
    }
    const client = new Counting({ apiKey: 'k', baseURL: suite.server.anthropicBaseURL });
    const perRequest: number[] = [];
    const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: 'Once per client.' }];
    for (let i = 0; i < 3; i++) {
      const before = calls;
      const sent = suite.server.received.length;
      const checks = await implicitChecks(async () => {
        const reply = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages });
        const text = reply.content.map((block) => ('text' in block ? block.text : '')).join('');
        messages.push({ role: 'assistant', content: text }, { role: 'user', content: `Turn ${i + 2}.` });
      });
      expect(suite.server.received.length - sent).toBe(1);
      perRequest.push(calls - before);
      if (i === 0) expect(checks).toHaveLength(1);
    }
    // The client itself asks for its list on every request; the hook asks once, at the first.
    expect(perRequest[1]).toBe(perRequest[0]! - 1);
    expect(perRequest[2]).toBe(perRequest[1]);
  });
});
