// An unmodified Bedrock agent (it never imports this package) on the AWS
// SDK's own client, started with only `--require nous-session-invariant/register`
// and exporting over OTLP: the client sends Converse over node:http2 to a
// loopback server, so only its hook sees the requests. A correct loop stays
// silent with every request checked as `aws.bedrock`; each history bug is
// reported once, with its kind, streamed (ConverseStream's event stream)
// and not. On the highest version tested (the whole fault matrix) and the
// lowest the range claims (src/integrations/supported-versions.ts: the faults
// that need the reply observed).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { BEDROCK_ROOT, startFakeBedrock, type FakeBedrock } from '../support/fake-bedrock';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { runRegisteredApp, type ZeroCodeRun } from '../support/zero-code-app';
import { FAULTS } from '../support/faults';

let server: FakeBedrock;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  server = await startFakeBedrock();
});
afterAll(async () => {
  await server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/** The lowest version claimed, 3.587.0: the project test/versions/bedrock-3.587. */
const LOWEST_ROOT = resolve(__dirname, '../versions/bedrock-3.587');

/** The app on the SDK at `root`, sent to the endpoint its default handler speaks: HTTP/2 from the newer line, HTTP/1.1 on 3.587. */
function runApp(root: string, env: Record<string, string>, app = 'test/fixtures/zero-code/bedrock.cjs'): Promise<ZeroCodeRun> {
  const url = root === LOWEST_ROOT ? server.http1Url : server.url;
  return runRegisteredApp(app, { FAKE_BEDROCK_URL: url, BEDROCK_ROOT: root, ...env }, receivers);
}

const REPLY_FAULTS = FAULTS.filter(([fault]) => fault === 'drop-last-reply' || fault === 'invent-reply');

describe.each([
  { sdk: '3.1178', root: BEDROCK_ROOT, stream: '0', faults: [...FAULTS, ['drop-result-once', 'missing_message'] as [string, string]] },
  { sdk: '3.1178', root: BEDROCK_ROOT, stream: '1', faults: [...FAULTS, ['drop-result-once', 'missing_message'] as [string, string]] },
  { sdk: '3.587', root: LOWEST_ROOT, stream: '0', faults: REPLY_FAULTS },
  { sdk: '3.587', root: LOWEST_ROOT, stream: '1', faults: REPLY_FAULTS },
])('@aws-sdk/client-bedrock-runtime $sdk Converse, zero code (stream $stream)', ({ root, stream, faults }) => {
  it.concurrent('a correct tool loop stays silent, every request checked as aws.bedrock against the implicit log', async () => {
    const result = await runApp(root, { STREAM: stream });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.providers).toEqual(['aws.bedrock']);
    expect(result.logs).toEqual(['implicit']);
    expect(result.stderr).not.toMatch(/not checked|internal error/i);
  });

  it.concurrent.each(faults)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp(root, { STREAM: stream, FAULT: fault })).kinds).toEqual([kind]);
  });
});

/** An ES module app that imports the SDK by its name (test/versions/bedrock-3.1178/esm-app.mjs). */
const ESM_APP = 'test/versions/bedrock-3.1178/esm-app.mjs';

// An ES module app imports the SDK (its CommonJS build: the package has no export map), under --import.
describe.each(['0', '1'])('@aws-sdk/client-bedrock-runtime Converse in an ES module app, zero code (stream %s)', (stream) => {
  it.concurrent('a correct tool loop stays silent, every request checked', async () => {
    const result = await runApp(BEDROCK_ROOT, { STREAM: stream }, ESM_APP);
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
  });

  it.concurrent('an invented reply is reported once', async () => {
    expect((await runApp(BEDROCK_ROOT, { STREAM: stream, FAULT: 'invent-reply' }, ESM_APP)).kinds).toEqual(['extra_message']);
  });
});
