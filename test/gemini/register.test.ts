// An unmodified Gemini app (it never imports this package), started with only
// `--import nous-session-invariant/register` and exporting over OTLP: a
// correct loop stays silent, each history bug is reported once, with its
// kind, against the implicit conversation, on the Gemini API and Vertex AI
// paths, streamed or not.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { runRegisteredApp, type ZeroCodeRun } from '../support/zero-code-app';
import { FAULTS } from '../support/faults';

let server: FakeGemini;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  server = await startFakeGemini();
});
afterAll(async () => {
  await server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/**
 * The shared fault matrix, read the Gemini way: consecutive model turns are
 * one assistant message (docs/behaviour.md §4.3 rule 28). So a reorder that
 * puts the first answer right before the next function call turn rewrites
 * that turn (missing_message), and an invented model turn right after the
 * model's answer reads as an edit of it, at the end of the history: a branch
 * outside a run, not reported. (An invented turn elsewhere is extra_message:
 * zero-code.test.ts.)
 */
const GEMINI_FAULTS = FAULTS.filter(([fault]) => fault !== 'invent-reply').map(([fault, kind]): [string, string] =>
  fault === 'reorder' ? [fault, 'missing_message'] : [fault, kind],
);

/** Runs the fixture app against the fake Gemini server: the kinds of the violations it exported, its checks, and the logs they name. */
function runApp(env: Record<string, string>): Promise<ZeroCodeRun> {
  return runRegisteredApp('test/fixtures/zero-code/gemini.mjs', { FAKE_GEMINI_URL: server.url, ...env }, receivers);
}

describe.each([
  { stream: '0', vertex: '0' },
  { stream: '1', vertex: '0' },
  { stream: '0', vertex: '1' },
  { stream: '1', vertex: '1' },
])('@google/genai, zero code (stream $stream, vertex $vertex)', (env) => {
  it.concurrent('a correct function-calling loop stays silent, every request checked against the implicit log', async () => {
    const result = await runApp(env);
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.logs).toEqual(['implicit']);
  });

  it.concurrent.each(env.vertex === '0' ? GEMINI_FAULTS : GEMINI_FAULTS.slice(0, 2))('%s is reported once as %s', async (fault, kind) => {
    const result = await runApp({ ...env, FAULT: fault });
    expect(result.kinds).toEqual([kind]);
  });
});
