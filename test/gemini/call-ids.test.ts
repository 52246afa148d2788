// Gemini call ids on one side only (issue 37 item 1): client libraries'
// own, unmodified tool loops under only the register line, against a
// loopback Gemini server that sends function calls with no id, or with one.
// `@ai-sdk/google` makes up an id for a call that had none and sends it back
// on the call and its response; `@langchain/google-genai` drops the id the
// model sent. Neither is history the app changed: ids are read by position
// (docs/behaviour.md §4.3 rule 30), so every loop is silent, and each of
// its requests is checked.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { runRegisteredApp } from '../support/zero-code-app';

let idless: FakeGemini;
let withIds: FakeGemini;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  idless = await startFakeGemini();
  withIds = await startFakeGemini({ callIds: true });
});
afterAll(async () => {
  await idless.close();
  await withIds.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe.each(['ai-sdk', 'langchain'])('%s on Gemini, zero code', (library) => {
  it.concurrent.each([
    ['no call ids', () => idless],
    ['call ids', () => withIds],
  ] as const)('a correct tool loop with %s in the replies stays silent', async (_, server) => {
    const before = server().received.length;
    const result = await runRegisteredApp(
      'test/fixtures/zero-code/gemini-libraries.mjs',
      { LIBRARY: library, FAKE_GEMINI_URL: server().url },
      receivers,
    );
    expect(result.kinds, result.stderr).toEqual([]);
    // Three turns of a call and an answer: six requests, each checked against the implicit log.
    expect(server().received.length - before).toBe(6);
    expect(result.checks).toBe(6);
    expect(result.logs).toEqual(['implicit']);
  });
});
