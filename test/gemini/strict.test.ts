// Strict mode with no code, on `@google/genai`: the fetch seam refuses a
// broken request before it is sent by rejecting the client's fetch with the
// SessionInvariantViolation. The client hands a thrown Error on as it is and,
// with no `httpOptions.retryOptions` (its default), makes one attempt.

import { GoogleGenAI, type Content } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionInvariantViolation, VIOLATION_METRIC, setLogger } from '../../src/index';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { resetWarnings } from '../../src/warnings';
import { instrument, type Instrumented } from '../support/instrumented';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini';

let server: FakeGemini;
let env: Instrumented;

beforeAll(async () => {
  server = await startFakeGemini();
  env = instrument({ mode: 'strict' });
  resetWarnings();
  setLogger({ warn: () => {} });
});
afterAll(async () => {
  setLogger(null);
  env.instrumentation.disable();
  await env.otel.teardown();
  await server.close();
});

const total = (metric: string): Promise<number> => env.otel.total(metric);

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });

/** Two correct turns, then a third request with the first reply dropped: what `send` throws, and what it cost. */
async function dropFirstReply(send: (contents: Content[]) => Promise<Content>) {
  const tag = Math.random().toString(36).slice(2);
  const contents: Content[] = [user(`First question ${tag}`)];
  contents.push(await send(structuredClone(contents)));
  contents.push(user(`Second question ${tag}`));
  contents.push(await send(structuredClone(contents)));
  contents.push(user(`Third question ${tag}`));
  const [sent, checks, violations] = [server.received.length, await total(CHECKS_METRIC), await total(VIOLATION_METRIC)];
  const thrown = await send(contents.filter((_, i) => i !== 1)).then(
    () => undefined,
    (error: unknown) => error,
  );
  return {
    thrown,
    sent: server.received.length - sent,
    checks: (await total(CHECKS_METRIC)) - checks,
    violations: (await total(VIOLATION_METRIC)) - violations,
  };
}

describe('strict mode refuses a broken Gemini request before it is sent, with the violation itself', () => {
  it.each([false, true])('generateContent / generateContentStream (stream %s), default options: one attempt', async (stream) => {
    const client = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: server.url } });
    const result = await dropFirstReply(async (contents) => {
      if (!stream) return (await client.models.generateContent({ model: 'gemini-test', contents })).candidates![0]!.content!;
      const parts = [];
      for await (const chunk of await client.models.generateContentStream({ model: 'gemini-test', contents }))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      return { role: 'model', parts };
    });
    expect(result.thrown).toBeInstanceOf(SessionInvariantViolation);
    expect(result.thrown).toMatchObject({ details: { kind: 'missing_message' } });
    expect(result).toMatchObject({ sent: 0, checks: 1, violations: 1 });
  });

  it('with httpOptions.retryOptions the client retries the refusal: each attempt is checked and refused again, none is sent', async () => {
    const client = new GoogleGenAI({
      apiKey: 'k',
      httpOptions: { baseUrl: server.url, retryOptions: { attempts: 3, initialDelay: 0.001, maxDelay: 0.001 } },
    });
    const result = await dropFirstReply(
      async (contents) => (await client.models.generateContent({ model: 'gemini-test', contents })).candidates![0]!.content!,
    );
    expect(result.thrown).toBeInstanceOf(SessionInvariantViolation);
    expect(result.sent).toBe(0);
    expect(result.checks).toBe(3);
    expect(result.violations).toBe(3);
  });
});
