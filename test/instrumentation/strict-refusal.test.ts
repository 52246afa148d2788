// Strict mode with no code: a request the implicit log finds broken is refused
// before it is sent, on every supported stack, with the
// SessionInvariantViolation itself as the error the caller gets, after one
// attempt (each client with its default retries), and nothing reaches the
// provider.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionInvariantViolation, VIOLATION_METRIC, setLogger } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { resetWarnings } from '../../src/warnings';
import { useInstrumentedProvider } from '../support/instrumented';

const suite = useInstrumentedProvider({ mode: 'strict' });

beforeEach(() => {
  resetWarnings();
  setLogger({ warn: () => {} });
});
afterEach(() => setLogger(null));

/**
 * Two correct turns through `send`, then a third request with the first reply
 * dropped: the third is refused with the violation, once, and never sent.
 */
async function refusesDrop<M>(send: (messages: M[]) => Promise<M>, user: (text: string) => M): Promise<void> {
  const tag = Math.random().toString(36).slice(2);
  const history: M[] = [user(`First question ${tag}`)];
  history.push(await send(history.slice()));
  history.push(user(`Second question ${tag}`));
  history.push(await send(history.slice()));
  history.push(user(`Third question ${tag}`));
  const dropped = history.filter((_, i) => i !== 1);
  const sent = suite.server.received.length;
  const [checks, violations] = [await suite.env.otel.total(CHECKS_METRIC), await suite.env.otel.total(VIOLATION_METRIC)];
  const thrown = await send(dropped).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(SessionInvariantViolation);
  expect(thrown).toMatchObject({ details: { kind: 'missing_message' } });
  expect(suite.server.received.length).toBe(sent);
  // One attempt: checked once, not retried.
  expect((await suite.env.otel.total(CHECKS_METRIC)) - checks).toBe(1);
  expect((await suite.env.otel.total(VIOLATION_METRIC)) - violations).toBe(1);
}

describe('strict mode refuses a broken request before it is sent, with the violation itself, one attempt', () => {
  it('openai Chat Completions (client hook, default maxRetries)', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    type Chat = { role: 'user'; content: string } | { role: 'assistant'; content: string | null };
    await refusesDrop<Chat>(
      async (messages) => {
        const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
        const message = completion.choices[0]!.message;
        return { role: 'assistant', content: message.content };
      },
      (text) => ({ role: 'user', content: text }),
    );
  });

  it('openai Responses (client hook, default maxRetries)', async () => {
    const client = new suite.env.openai.OpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    type Item = { role: 'user' | 'assistant'; content: string };
    await refusesDrop<Item>(
      async (input) => {
        const response = await client.responses.create({ model: 'gpt-test', input });
        return { role: 'assistant', content: response.output_text };
      },
      (text) => ({ role: 'user', content: text }),
    );
  });

  it('@anthropic-ai/sdk Messages (client hook, default maxRetries)', async () => {
    const client = new suite.env.anthropic.Anthropic({ apiKey: 'k', baseURL: suite.server.anthropicBaseURL });
    type Param = { role: 'user' | 'assistant'; content: unknown };
    await refusesDrop<Param>(
      async (messages) => {
        const message = await client.messages.create({
          model: 'claude-test',
          max_tokens: 64,
          messages: messages as Parameters<typeof client.messages.create>[0]['messages'],
        });
        return { role: 'assistant', content: message.content };
      },
      (text) => ({ role: 'user', content: text }),
    );
  });

  it('AI SDK generateText on @ai-sdk/openai (fetch seam, default maxRetries)', async () => {
    const ai = await import('ai');
    const { createOpenAI } = await import('@ai-sdk/openai');
    const provider = createOpenAI({ apiKey: 'k', baseURL: suite.server.openaiBaseURL });
    type Model = { role: 'user'; content: string } | { role: 'assistant'; content: string };
    await refusesDrop<Model>(
      async (messages) => {
        const result = await ai.generateText({ model: provider.chat('gpt-test'), messages });
        return { role: 'assistant', content: result.text };
      },
      (text) => ({ role: 'user', content: text }),
    );
  });
});
