// Strict mode with no code: a request the implicit log finds broken is refused
// before it is sent, on every supported stack, with the
// SessionInvariantViolation itself as the error the caller gets, after one
// attempt (each client with its default retries), and nothing reaches the
// provider.

import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionInvariantViolation, VIOLATION_METRIC, setLogger } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { resetWarnings } from '../../src/warnings';
import { requireSdk, useInstrumentedProvider } from '../support/instrumented';
import { BEDROCK_ROOT, startFakeBedrock } from '../support/fake-bedrock';

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
async function refusesDrop<M>(
  send: (messages: M[]) => Promise<M>,
  user: (text: string) => M,
  violationOf: (error: unknown) => unknown = (error) => error,
  received: () => number = () => suite.server.received.length,
): Promise<void> {
  const tag = Math.random().toString(36).slice(2);
  const history: M[] = [user(`First question ${tag}`)];
  history.push(await send(history.slice()));
  history.push(user(`Second question ${tag}`));
  history.push(await send(history.slice()));
  history.push(user(`Third question ${tag}`));
  const dropped = history.filter((_, i) => i !== 1);
  const sent = received();
  const [checks, violations] = [await suite.env.otel.total(CHECKS_METRIC), await suite.env.otel.total(VIOLATION_METRIC)];
  const thrown = await send(dropped).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(violationOf(thrown)).toBeInstanceOf(SessionInvariantViolation);
  expect(violationOf(thrown)).toMatchObject({ details: { kind: 'missing_message' } });
  expect(received()).toBe(sent);
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

  it('groq-sdk Chat Completions (client hook, default maxRetries)', async () => {
    const { default: Groq } = requireSdk('groq-sdk') as typeof import('groq-sdk');
    const client = new Groq({ apiKey: 'k', baseURL: suite.server.url });
    type Chat = { role: 'user' | 'assistant'; content: string };
    await refusesDrop<Chat>(
      async (messages) => {
        const completion = await client.chat.completions.create({ model: 'llama-test', messages });
        return { role: 'assistant', content: completion.choices[0]!.message.content ?? '' };
      },
      (text) => ({ role: 'user', content: text }),
    );
  });

  it.each([false, true])('ollama chat, /api/chat (fetch seam, stream %s)', async (stream) => {
    const { Ollama } = requireSdk('ollama') as typeof import('ollama');
    const client = new Ollama({ host: suite.server.url });
    type Chat = { role: 'user' | 'assistant'; content: string };
    await refusesDrop<Chat>(
      async (messages) => {
        if (!stream) return { role: 'assistant', content: (await client.chat({ model: 'llama-test', messages, stream })).message.content };
        let content = '';
        for await (const part of await client.chat({ model: 'llama-test', messages, stream })) content += part.message.content;
        return { role: 'assistant', content };
      },
      (text) => ({ role: 'user', content: text }),
    );
  });

  it.each([false, true])(
    'cohere-ai v2 chat, /v2/chat (fetch seam, default retries, stream %s): its error carries the violation as its cause',
    async (stream) => {
      const { CohereClientV2 } = requireSdk('cohere-ai') as typeof import('cohere-ai');
      const client = new CohereClientV2({ token: 'k', environment: suite.server.url });
      type Chat = { role: 'user' | 'assistant'; content: string };
      const textOf = (content: unknown) => (content as Array<{ text?: string }> | undefined)?.map((part) => part.text ?? '').join('') ?? '';
      await refusesDrop<Chat>(
        async (messages) => {
          if (!stream)
            return { role: 'assistant', content: textOf((await client.chat({ model: 'command-test', messages })).message.content) };
          let content = '';
          for await (const event of await client.chatStream({ model: 'command-test', messages }))
            if (event.type === 'content-delta') content += event.delta?.message?.content?.text ?? '';
          return { role: 'assistant', content };
        },
        (text) => ({ role: 'user', content: text }),
        (error) => (error as { cause?: unknown }).cause,
      );
    },
  );

  it('@mistralai/mistralai chat (fetch seam with a Request, default retries): its error carries the violation as its cause', async () => {
    const mistral = await mistralClient(suite.server.url);
    type Chat = { role: 'user' | 'assistant'; content: string };
    await refusesDrop<Chat>(
      async (messages) => {
        const completion = await mistral.chat.complete({ model: 'mistral-test', messages });
        return { role: 'assistant', content: completion.choices[0]!.message.content ?? '' };
      },
      (text) => ({ role: 'user', content: text }),
      (error) => (error as { cause?: unknown }).cause,
    );
  });

  it.each(['ConverseCommand', 'ConverseStreamCommand'] as const)(
    '@aws-sdk/client-bedrock-runtime %s (middleware stack, default retries)',
    async (command) => {
      const bedrock = await startFakeBedrock();
      try {
        const sdk = createRequire(resolve(BEDROCK_ROOT, 'package.json'))('@aws-sdk/client-bedrock-runtime') as BedrockModule;
        const client = new sdk.BedrockRuntimeClient({
          region: 'us-east-1',
          endpoint: bedrock.url,
          credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
        });
        await refusesDrop<ConverseMessage>(
          async (messages) => {
            const output = await client.send(new sdk[command]({ modelId: 'anthropic.claude-test', messages }));
            if (output.output !== undefined) return output.output.message;
            let text = '';
            for await (const event of output.stream!) text += event.contentBlockDelta?.delta?.text ?? '';
            return { role: 'assistant', content: [{ text }] };
          },
          (text) => ({ role: 'user', content: [{ text }] }),
          (error) => error,
          () => bedrock.received.length,
        );
      } finally {
        await bedrock.close();
      }
    },
  );

  it('@mistralai/mistralai: a last assistant message with prefix: true (a prefill) is no violation', async () => {
    const mistral = await mistralClient(suite.server.url);
    const before = await suite.env.otel.total(VIOLATION_METRIC);
    const messages = [
      { role: 'user' as const, content: `Write a haiku ${Math.random()}` },
      { role: 'assistant' as const, content: 'Rain on', prefix: true },
    ];
    await mistral.chat.complete({ model: 'mistral-test', messages });
    expect((await suite.env.otel.total(VIOLATION_METRIC)) - before).toBe(0);
  });
});

type ConverseMessage = { role: 'user' | 'assistant'; content: Array<{ text: string }> };
type ConverseOutput = {
  output?: { message: ConverseMessage };
  stream?: AsyncIterable<{ contentBlockDelta?: { delta?: { text?: string } } }>;
};
type ConverseCommandClass = new (input: { modelId: string; messages: ConverseMessage[] }) => object;
interface BedrockModule {
  BedrockRuntimeClient: new (config: {
    region: string;
    endpoint: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  }) => { send(command: object): Promise<ConverseOutput> };
  ConverseCommand: ConverseCommandClass;
  ConverseStreamCommand: ConverseCommandClass;
}

type MistralMessage = { role: 'user' | 'assistant'; content: string; prefix?: boolean };
interface MistralClient {
  chat: {
    complete(request: { model: string; messages: MistralMessage[] }): Promise<{ choices: Array<{ message: { content: string | null } }> }>;
  };
}

/** A Mistral client on `serverURL`, from its own fixture project (test/fixtures/mistral). */
async function mistralClient(serverURL: string): Promise<MistralClient> {
  const fixture = createRequire(resolve(__dirname, '../fixtures/mistral/package.json'));
  const { Mistral } = (await import(fixture.resolve('@mistralai/mistralai'))) as {
    Mistral: new (options: { apiKey: string; serverURL: string }) => MistralClient;
  };
  return new Mistral({ apiKey: 'k', serverURL });
}
