// @anthropic-ai/sdk 0.x, the real packages, each installed in its own fixture
// folder under test/versions/ (the test run installs them): the lowest version
// whose client has the `prepareOptions` seam (0.12.4, still on node-fetch)
// and the 0.122 line `@langchain/anthropic` bundles (on globalThis.fetch).
// Each is loaded after the instrumentation is enabled, as `register` does.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { trace } from '@opentelemetry/api';
import semver from 'semver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionInvariantViolation, SessionLog, VIOLATION_METRIC, appendMessage, setLogger, withSession } from '../../src/index';
import { SessionInvariantInstrumentation } from '../../src/instrumentation';
import { toAnthropic } from '../../src/adapters';
import { fromAnthropicReply } from '../../src/integrations/anthropic/adapter';
import { ANTHROPIC_SUPPORTED } from '../../src/integrations/anthropic/provider';
import { MAX_REPLY_BYTES } from '../../src/integrations/http/reply-reader';
import { CHECKS_METRIC } from '../../src/telemetry/semconv';
import { resetWarnings } from '../../src/warnings';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { PACKAGE_ROOT } from '../support/run-node';
import { registerOtel, type OtelHarness } from '../support/otel';
import { weatherToolLog } from '../support/transcripts';

/** The fixture folders, by the version they pin. */
const ANTHROPIC_0X = [
  { version: '0.12.4', root: 'test/versions/anthropic-0.12.4' },
  { version: '0.122.0', root: 'test/versions/anthropic-0.122-langchain' },
];

type Block = { type: string; id?: string; name?: string; input?: unknown; text?: string };
type Reply = { content: Block[] };
interface Messages {
  create(params: Record<string, unknown>): Promise<unknown>;
  stream(params: Record<string, unknown>): { finalMessage(): Promise<Reply> };
}
/** Before 0.14 the Messages API is `client.beta.messages` (the same POST /v1/messages). */
type Client = { messages: Messages } | { beta: { messages: Messages } };
type ClientClass = new (options: Record<string, unknown>) => Client;

let server: FakeProvider;
let otel: OtelHarness;
let instrumentation: SessionInvariantInstrumentation;
const warn = vi.fn();

beforeAll(async () => {
  server = await startFakeProvider();
  otel = registerOtel();
  instrumentation = new SessionInvariantInstrumentation({ mode: 'warn' });
  instrumentation.setTracerProvider(otel.tracerProvider);
  instrumentation.setMeterProvider(otel.meterProvider);
});
afterAll(async () => {
  instrumentation.disable();
  await otel.teardown();
  await server.close();
});
beforeEach(() => {
  otel.spans.reset();
  resetWarnings();
  warn.mockReset();
  setLogger({ warn });
});
afterEach(() => setLogger(null));

const tools = [
  { name: 'get_weather', description: 'The weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
];

describe.each(ANTHROPIC_0X)('@anthropic-ai/sdk $version', ({ version, root }) => {
  let Anthropic: ClientClass;
  beforeAll(() => {
    const sdk = createRequire(resolve(PACKAGE_ROOT, root, 'package.json'))('@anthropic-ai/sdk') as { default: ClientClass };
    Anthropic = sdk.default;
    const installed = JSON.parse(readFileSync(resolve(PACKAGE_ROOT, root, 'node_modules/@anthropic-ai/sdk/package.json'), 'utf8')) as {
      version: string;
    };
    expect(installed.version).toBe(version);
  });
  const client = (maxRetries = 0) => {
    const sdk = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL, maxRetries });
    return { messages: 'messages' in sdk ? sdk.messages : sdk.beta.messages };
  };
  const request = (log: SessionLog) => ({ model: 'claude-test', max_tokens: 64, ...toAnthropic(log.deriveMessages()) });

  it('is in the supported range, and no warning says otherwise', async () => {
    await withSession(weatherToolLog(), () => client().messages.create(request(weatherToolLog())));
    expect(warn.mock.calls.filter(([m]) => /@anthropic-ai\/sdk/.test(m as string))).toEqual([]);
    expect(semver.satisfies(version, ANTHROPIC_SUPPORTED)).toBe(true);
  });

  it('a correct tool loop is silent against a bound log, every request checked', async () => {
    const [violations, checks] = [await otel.total(VIOLATION_METRIC), await otel.total(CHECKS_METRIC)];
    const log = new SessionLog();
    log.append('system_message', { content: 'You are a weather bot.' });
    log.append('user_message', { content: 'Umbrella in Lisbon?' });
    for (let step = 0; step < 3; step++) {
      const reply = (await withSession(log, () => client().messages.create({ ...request(log), tools }))) as Reply;
      appendMessage(log, fromAnthropicReply(reply.content)[0]!);
      const calls = reply.content.filter((b) => b.type === 'tool_use');
      if (calls.length === 0) {
        if (step === 0) throw new Error('the fake provider should call the tool first');
        log.append('user_message', { content: 'Thanks. And in Porto?' });
        continue;
      }
      for (const call of calls) log.append('tool_result', { content: '{"rain":true}', toolCallId: call.id!, name: call.name! });
    }
    expect(await otel.total(CHECKS_METRIC)).toBe(checks + 3);
    expect(await otel.total(VIOLATION_METRIC)).toBe(violations);
  });

  it('a correct tool loop is silent against the implicit log (no session bound)', async () => {
    const [violations, checks] = [await otel.total(VIOLATION_METRIC), await otel.total(CHECKS_METRIC)];
    const system = 'You are a weather bot.';
    const messages: Array<{ role: string; content: unknown }> = [{ role: 'user', content: `Umbrella in Lisbon? (${version})` }];
    for (let step = 0; step < 4; step++) {
      const reply = (await client().messages.create({ model: 'claude-test', max_tokens: 64, system, tools, messages })) as Reply;
      messages.push({ role: 'assistant', content: reply.content });
      const calls = reply.content.filter((b) => b.type === 'tool_use');
      messages.push(
        calls.length > 0
          ? { role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: '{"rain":true}' })) }
          : { role: 'user', content: 'And in Porto?' },
      );
    }
    expect(await otel.total(CHECKS_METRIC)).toBe(checks + 4);
    expect(await otel.total(VIOLATION_METRIC)).toBe(violations);
  });

  it('a dropped tool result is missing_message, on the span of the request', async () => {
    const log = weatherToolLog();
    const { system, messages } = toAnthropic(log.deriveMessages());
    const before = await otel.total(VIOLATION_METRIC, 'missing_message');
    await trace.getTracer('app').startActiveSpan('agent step', async (span) => {
      await withSession(log, () =>
        client().messages.create({ model: 'claude-test', max_tokens: 64, system, messages: messages.slice(0, 2) }),
      );
      span.end();
    });
    const events = otel.spans.getFinishedSpans().flatMap((s) => s.events.map((e) => e.attributes?.['nous.session.invariant.kind']));
    expect(events).toEqual(['missing_message']);
    expect(await otel.total(VIOLATION_METRIC, 'missing_message')).toBe(before + 1);
  });

  it('does not alter the request: the server receives the body as built, bound or not', async () => {
    const params = request(weatherToolLog());
    const sent = JSON.parse(JSON.stringify(params)) as unknown;
    await withSession(weatherToolLog(), () => client().messages.create(params));
    expect(server.received.at(-1)!.body).toEqual(sent);
    await client().messages.create(params);
    expect(server.received.at(-1)!.body).toEqual(sent);
    expect(params).toEqual(sent);
  });

  it('stream() works and is checked', async () => {
    const before = await otel.total(VIOLATION_METRIC, 'extra_message');
    const log = weatherToolLog();
    const { system, messages } = toAnthropic(log.deriveMessages());
    const final = await withSession(log, () =>
      client()
        .messages.stream({ model: 'claude-test', max_tokens: 64, system, messages: [...messages, { role: 'user', content: 'ghost' }] })
        .finalMessage(),
    );
    expect(final.content[0]).toMatchObject({ type: 'text' });
    expect(await otel.total(VIOLATION_METRIC, 'extra_message')).toBe(before + 1);
  });

  it('create({ stream: true }) works and is checked; a correct request is silent', async () => {
    const [violations, checks] = [await otel.total(VIOLATION_METRIC), await otel.total(CHECKS_METRIC)];
    const log = weatherToolLog();
    const stream = (await withSession(log, () => client().messages.create({ ...request(log), stream: true }))) as AsyncIterable<{
      type: string;
    }>;
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('message_stop');
    expect(await otel.total(CHECKS_METRIC)).toBe(checks + 1);
    expect(await otel.total(VIOLATION_METRIC)).toBe(violations);
  });

  it('strict mode throws before the server receives the request', async () => {
    const sent = server.received.length;
    const call = withSession(
      weatherToolLog(),
      () => client().messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'ghost' }] }),
      { mode: 'strict' },
    );
    await expect(call).rejects.toBeInstanceOf(SessionInvariantViolation);
    expect(server.received.length).toBe(sent);
  });

  it.each([false, true])('a long reply reaches the caller whole, and is observed (stream: %s)', async (streamed) => {
    const text = 'x'.repeat(256 * 1024);
    const long = await startLongReplyProvider(text);
    try {
      const sdk = new Anthropic({ apiKey: 'test-key', baseURL: long.url, maxRetries: 0, timeout: 5_000 });
      const messages = 'messages' in sdk ? sdk.messages : sdk.beta.messages;
      const params = {
        model: 'claude-test',
        max_tokens: 64,
        messages: [{ role: 'user', content: `Tell me a long story (${version}, ${streamed}).` }],
      };
      // The implicit log saw the reply: within one run (the app's span), a next request that leaves it out is reported.
      const before = await otel.total(VIOLATION_METRIC, 'missing_message');
      await trace.getTracer('app').startActiveSpan('turn', async (span) => {
        const first = streamed ? await messages.stream(params).finalMessage() : ((await messages.create(params)) as Reply);
        expect(first.content[0]!.text).toHaveLength(text.length);
        await messages.create({ ...params, messages: [...params.messages, { role: 'user', content: 'Shorter, please.' }] });
        span.end();
      });
      expect(await otel.total(VIOLATION_METRIC, 'missing_message')).toBe(before + 1);
    } finally {
      await long.close();
    }
  });

  it("a reply over the reader's bound still reaches the caller whole, and is not observed", async () => {
    const text = 'y'.repeat(MAX_REPLY_BYTES + 1024);
    const long = await startLongReplyProvider(text);
    try {
      const sdk = new Anthropic({ apiKey: 'test-key', baseURL: long.url, maxRetries: 0, timeout: 10_000 });
      const messages = 'messages' in sdk ? sdk.messages : sdk.beta.messages;
      const reply = (await messages.create({
        model: 'claude-test',
        max_tokens: 64,
        messages: [{ role: 'user', content: `Longer (${version}).` }],
      })) as Reply;
      expect(reply.content[0]!.text).toHaveLength(text.length);
    } finally {
      await long.close();
    }
  });

  it('a retried attempt is checked and counted once', async () => {
    const [violations, checks] = [await otel.total(VIOLATION_METRIC), await otel.total(CHECKS_METRIC)];
    const sent = server.received.length;
    server.failNext(1);
    await withSession(weatherToolLog(), () =>
      client(2).messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'ghost' }] }),
    );
    expect(server.received.length - sent).toBe(2);
    expect((await otel.total(VIOLATION_METRIC)) - violations).toBe(1);
    expect((await otel.total(CHECKS_METRIC)) - checks).toBe(1);
  });
});

/** A provider whose every Messages reply is one long text, as JSON or as a stream of deltas. */
async function startLongReplyProvider(text: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const message = {
        id: 'msg_long',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        stop_reason: 'end_turn',
        stop_sequence: null,
      };
      const usage = { input_tokens: 10, output_tokens: 1000 };
      if (!(JSON.parse(body) as { stream?: boolean }).stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...message, content: [{ type: 'text', text }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (data: { type: string } & Record<string, unknown>) =>
        res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      send({ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage } });
      send({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      for (let i = 0; i < text.length; i += 1000)
        send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(i, i + 1000) } });
      send({ type: 'content_block_stop', index: 0 });
      send({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage });
      send({ type: 'message_stop' });
      res.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

describe('@anthropic-ai/sdk below the supported range', () => {
  it('is reported once at load, naming the version, and its client is not hooked', () => {
    const definition = instrumentation.getModuleDefinitions().find((d) => d.name === '@anthropic-ai/sdk')!;
    class Anthropic {
      prepareOptions() {}
    }
    const exports = { default: Anthropic, Anthropic };
    definition.patch!(exports, '0.12.3');
    definition.patch!(exports, '0.12.3');
    const lines = warn.mock.calls.map(([m]) => m as string).filter((m) => m.includes('@anthropic-ai/sdk 0.12.3'));
    expect(lines).toEqual([`@anthropic-ai/sdk 0.12.3 is outside the supported range ${ANTHROPIC_SUPPORTED}; its requests are not checked`]);
    expect((Anthropic.prototype.prepareOptions as { __wrapped?: boolean }).__wrapped).toBeUndefined();
  });
});
