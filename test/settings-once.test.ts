// Fixed costs out of the call (issue 22): the enabled instrumentation reads
// the environment when it is enabled or configured, not per request; the
// fetch seam tells a hooked SDK client's request without parsing its URL,
// with the answer parsing would give.

import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionInvariantInstrumentation } from '../src/instrumentation';
import { currentHost } from '../src/request-path/host';
import { plainPath } from '../src/integrations/fetch/fetch-seam';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the instrumentation reads the environment once per enable() or setConfig()', () => {
  it('keeps what it read until setConfig() or enable() reads it again', () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'off');
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    vi.stubEnv('NOUS_SESSION_INVARIANT_IMPLICIT', 'false');
    vi.stubEnv('NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS', 'true');
    const instrumentation = new SessionInvariantInstrumentation();
    try {
      const first = currentHost().settings();
      expect(first).toMatchObject({ mode: 'off', captureContent: true, implicit: { enabled: false }, trustInputFilters: true });
      vi.stubEnv('NOUS_SESSION_INVARIANT', 'strict');
      vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'false');
      vi.stubEnv('NOUS_SESSION_INVARIANT_IMPLICIT', 'true');
      vi.stubEnv('NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS', 'false');
      // Per request: the same settings, the environment not read again.
      expect(currentHost().settings()).toBe(first);
      instrumentation.setConfig({});
      expect(currentHost().settings()).toMatchObject({
        mode: 'strict',
        captureContent: false,
        implicit: { enabled: true },
        trustInputFilters: false,
      });
      vi.stubEnv('NOUS_SESSION_INVARIANT', 'warn');
      instrumentation.disable();
      instrumentation.enable();
      expect(currentHost().settings().mode).toBe('warn');
    } finally {
      instrumentation.disable();
    }
  });

  it.each([
    [{ captureMessageContent: true }, true],
    [{ captureContent: true }, true],
    [{ captureMessageContent: false, captureContent: true }, false],
    [{ captureMessageContent: true, captureContent: false }, true],
  ])('takes content capture from captureMessageContent, or from its deprecated alias captureContent: %j gives %s', (config, capture) => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', String(!capture));
    const instrumentation = new SessionInvariantInstrumentation(config);
    try {
      expect(currentHost().settings().captureContent).toBe(capture);
    } finally {
      instrumentation.disable();
    }
  });

  it('lets the config win over the environment, as before', () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'off');
    vi.stubEnv('NOUS_SESSION_INVARIANT_IMPLICIT', 'false');
    const instrumentation = new SessionInvariantInstrumentation({
      mode: 'strict',
      captureContent: false,
      implicit: { maxConversations: 5 },
    });
    try {
      expect(currentHost().settings()).toMatchObject({
        mode: 'strict',
        captureContent: false,
        implicit: { enabled: false, maxConversations: 5 },
      });
      instrumentation.setConfig({ implicit: true, trustInputFilters: false });
      expect(currentHost().settings()).toMatchObject({ mode: 'off', implicit: { enabled: true }, trustInputFilters: false });
    } finally {
      instrumentation.disable();
    }
  });
});

describe('with no instrumentation enabled, the environment is read once too', () => {
  it('keeps what it read until an instrumentation is enabled or disabled', () => {
    const before = new SessionInvariantInstrumentation();
    before.disable(); // whatever an earlier test left: the global host reads again from here
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'strict');
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    vi.stubEnv('NOUS_SESSION_INVARIANT_IMPLICIT', 'false');
    vi.stubEnv('NOUS_SESSION_INVARIANT_REDACT_SECRETS', 'false');
    const first = currentHost().settings();
    expect(first).toMatchObject({ mode: 'strict', captureContent: true, implicit: { enabled: false }, previews: { redactSecrets: false } });
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'off');
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'false');
    // Per request: the same settings, the environment not read again.
    expect(currentHost().settings()).toBe(first);
    const instrumentation = new SessionInvariantInstrumentation();
    instrumentation.disable();
    expect(currentHost().settings()).toMatchObject({ mode: 'off', captureContent: false });
  });
});

describe('one function builds the settings from the environment, enabled or not', () => {
  const VARIABLES = {
    NOUS_SESSION_INVARIANT: ['off', 'warn', 'strict', 'STRICT ', 'loud', ''],
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: ['true', 'false', 'TRUE', '1', 'yes', ''],
    NOUS_SESSION_INVARIANT_REDACT_SECRETS: ['true', 'false', 'off', ''],
    NOUS_SESSION_INVARIANT_IMPLICIT: ['true', 'false', 'False', '0', ''],
    NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS: ['true', 'false', 'on', ''],
  };
  const environment = fc.record(
    Object.fromEntries(
      Object.entries(VARIABLES).map(([name, values]) => [name, fc.option(fc.constantFrom(...values), { nil: undefined })]),
    ),
  );

  it('gives the instrumentation with an empty config and the seams with none enabled the same settings, whatever the variables say', () => {
    fc.assert(
      fc.property(environment, (env) => {
        vi.unstubAllEnvs();
        for (const name of Object.keys(VARIABLES)) vi.stubEnv(name, env[name]);
        const instrumentation = new SessionInvariantInstrumentation();
        let enabled;
        try {
          enabled = currentHost().settings();
        } finally {
          instrumentation.disable();
        }
        // With none enabled, read again (disable() drops what was kept).
        expect(currentHost().settings()).toStrictEqual(enabled);
      }),
      { numRuns: 60 },
    );
  });
});

describe('fetch seam: the path of a plain URL string, without parsing it', () => {
  const anthropic = (path: string) => path.endsWith('/messages');
  const segment = fc.constantFrom(
    'v1',
    'messages',
    'chat',
    'completions',
    'responses',
    '.',
    '..',
    '',
    'x.y',
    'a b',
    '%2e',
    'é',
    '\\',
    '\t',
    'v1\\messages',
    'mess\tages',
    'messages\n',
    'mess%61ges',
  );
  const url = fc
    .record({
      scheme: fc.constantFrom('http', 'https', 'HTTP', 'ftp', 'foo', 'http:'),
      slashes: fc.constantFrom('//', '/', '///', ''),
      host: fc.constantFrom('api.openai.com', '127.0.0.1:8080', 'user@host', 'h', '[::1]', 'host:99999', ''),
      path: fc.array(segment, { maxLength: 6 }),
      tail: fc.constantFrom('', '?a=1', '#x', '?a=/messages', '#/messages'),
    })
    .map(({ scheme, slashes, host, path, tail }) => `${scheme}:${slashes}${host}${path.map((s) => `/${s}`).join('')}${tail}`);

  it('reads as the URL parser would wherever it reads at all', () => {
    fc.assert(
      fc.property(url, (input) => {
        const path = plainPath(input);
        if (path === undefined) return;
        let parsed: string | undefined;
        try {
          parsed = new URL(input).pathname;
        } catch {
          return; // an invalid URL is never a model request; the seam returns the same either way
        }
        expect(anthropic(path)).toBe(anthropic(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the usual SDK URLs', () => {
    expect(plainPath('https://api.anthropic.com/v1/messages')).toBe('/v1/messages');
    expect(plainPath('http://127.0.0.1:4010/v1/chat/completions?x=1')).toBe('/v1/chat/completions');
    expect(plainPath('https://h/v1/messages%2F')).toBeUndefined();
  });
});
