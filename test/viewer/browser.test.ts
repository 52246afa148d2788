// The viewer in a real browser (Debian's chromium, driven by playwright-core):
// unmodified apps run under `--require nous-session-invariant/register`, each
// with a history bug, export to the viewer's bin over http/protobuf and
// http/json, and their violations appear on the page, drawn at the right
// position with the right role. Skipped with one line when chromium is not
// installed (test/support/tools.ts). Takes the README's screenshot, and saves it
// as docs/viewer.png with NOUS_UPDATE_SCREENSHOT=1 (else in a temporary folder,
// so a test run leaves the checkout clean).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { PACKAGE_ROOT, runNode } from '../support/run-node';
import { startViewerBin, type RunningViewer } from '../support/viewer-browser';
import { requireProgram } from '../support/tools';
import { findProgram } from '../../stack/native';

const runs = requireProgram('chromium', 'the viewer browser tests');
const JAEGER = 'http://jaeger.example:16686';
/** Prompt text the apps send: none of it may reach the page with content capture off. */
const PROMPTS = ['Umbrella in Lisbon?', 'And in Porto?', 'weather assistant', 'SECRET-PROMPT-TEXT', 'GHOST-SECRET-TEXT'];
const HOSTILE = '<img src=x onerror="window.__pwned=1">';

let provider: FakeProvider;
let viewer: RunningViewer;
let pageUrl: string;
let otlpUrl: string;
let context: BrowserContext;
let page: Page;
let profile: string;
/** The list's text before any app ran: the empty page's start hint. */
let emptyPage: string;

/** Starts the package's bin on free ports, linking traces to JAEGER. */
async function startBin(): Promise<void> {
  viewer = await startViewerBin(['--jaeger', JAEGER]);
  pageUrl = viewer.pageUrl;
  otlpUrl = viewer.otlpUrl;
}

/** Runs an unmodified fixture app with its history bug, exporting to the viewer. */
async function runApp(
  app: string,
  service: string,
  protocol: 'http/protobuf' | 'http/json',
  env: Record<string, string> = {},
): Promise<void> {
  const run = await runNode(['--require', 'nous-session-invariant/register', app], {
    FAKE_PROVIDER_URL: provider.openaiBaseURL,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: service,
    ...env,
  });
  expect(run.stdout, run.stderr).toContain('agent done');
}

/** Selects the violation of `service` with the keyboard-free path: a click on its entry. */
async function select(service: string): Promise<void> {
  await page.locator('button.violation', { hasText: service }).first().click();
  await expect.poll(() => page.locator('#detail dd', { hasText: service }).count()).toBe(1);
}

/** The picture's marked cells, as `side position mark role`. */
async function marked(): Promise<string[]> {
  return page.locator('#detail .cell.missing, #detail .cell.extra, #detail .cell.moved').evaluateAll((cells) =>
    cells.map((c) => {
      const d = (name: string) => c.getAttribute(`data-${name}`) ?? '-';
      return [d('side'), d('position'), d('mark'), d('role')].join(' ');
    }),
  );
}

/** The focused element's class and violation id (page code as a string: the test is compiled without DOM types). */
function focused(): Promise<{ className: string; id: string | undefined }> {
  return page.evaluate('({ className: document.activeElement.className, id: document.activeElement.dataset.id })');
}

describe.runIf(runs)('the viewer in chromium', () => {
  beforeAll(async () => {
    provider = await startFakeProvider();
    await startBin();
    profile = mkdtempSync(join(tmpdir(), 'nous-viewer-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: findProgram('chromium')!,
      headless: true,
      viewport: { width: 1000, height: 600 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(pageUrl);
    await page.waitForFunction("document.getElementById('status').textContent.startsWith('0 violations')");
    emptyPage = (await page.locator('#list').textContent()) ?? '';
    // Four unmodified runs, two at a time: a dropped turn and a reorder over protobuf, a duplicate and a bound
    // session's invented message over JSON.
    await Promise.all([
      runApp('test/fixtures/zero-code/openai-chat.cjs', 'app-missing', 'http/protobuf', { FAULT: 'drop-old-turn' }),
      runApp('test/fixtures/zero-code/openai-chat.cjs', 'app-extra', 'http/json', { FAULT: 'duplicate' }),
    ]);
    await Promise.all([
      runApp('test/fixtures/zero-code/openai-chat.cjs', 'app-order', 'http/protobuf', { FAULT: 'reorder' }),
      runApp('test/fixtures/agent-app.cjs', 'app-bound', 'http/json'),
    ]);
  });

  afterAll(async () => {
    await context?.close();
    viewer?.stop();
    await provider?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('the empty page says how to send violations to it, with its own OTLP address', () => {
    expect(emptyPage).toContain('No violations yet.');
    expect(emptyPage).toContain('NODE_OPTIONS="--require nous-session-invariant/register"');
    expect(emptyPage).toContain(`OTEL_EXPORTER_OTLP_ENDPOINT=${otlpUrl} node app.js`);
  });

  it('shows each run’s violation within a few seconds of its exit, grouped by conversation', async () => {
    await expect.poll(() => page.locator('button.violation').count(), { timeout: 5_000 }).toBe(4);
    for (const service of ['app-missing', 'app-extra', 'app-order', 'app-bound']) {
      await expect(page.locator('button.violation', { hasText: service }).count()).resolves.toBe(1);
    }
    // Each run is its own conversation: the implicit log's, or the bound session's.
    const groups = await page.locator('.group h2').allTextContents();
    expect(groups).toHaveLength(4);
    for (const group of groups) expect(group).toMatch(/^conversation [0-9a-f-]{36}(\.\d+)?$/);
    // The chart has a bar for each kind seen.
    expect(new Set(await page.locator('#chart rect').evaluateAll((r) => r.map((e) => e.getAttribute('data-kind'))))).toEqual(
      new Set(['missing_message', 'extra_message', 'order']),
    );
  });

  it('a dropped turn: the missing messages at their positions, with their roles, in the conversation so far', async () => {
    await select('app-missing');
    expect(await marked()).toEqual(['log 5 missing user', 'log 6 missing assistant', 'log 7 missing tool', 'log 8 missing assistant']);
    expect(await page.locator('#detail h3').allTextContents()).toEqual(['request (10 messages)', 'conversation so far (14 messages)']);
    // The missing tool result names its tool and the call it answered, in its row.
    expect(await page.locator('#detail .cell.missing[data-role="tool"] .tool').textContent()).toMatch(/^get_weather · call id call_\S+$/);
    // A matching row says so, with its role; the surplus rows say what they are.
    // Request and conversation row by row: the two before the drop, then the two after it, each side at its own position.
    expect(await page.locator('#detail .cell.same:not(.run)').allTextContents()).toEqual([
      '#3 tool · matches',
      '#3 tool · matches',
      '#4 assistant · matches',
      '#4 assistant · matches',
      '#5 user · matches',
      '#9 user · matches',
      '#6 assistant · matches',
      '#10 assistant · matches',
    ]);
    // The fix and the docs, as the stderr line gives them.
    const facts = await page.locator('#detail dt').allTextContents();
    expect(facts).toEqual(expect.arrayContaining(['explanation', 'fix', 'docs']));
    expect(await page.locator('#detail dd').nth(facts.indexOf('fix')).textContent()).toMatch(/^usually history trimming/);
    const docs = page.locator('#detail dd a', { hasText: 'behaviour.md' });
    expect(await docs.textContent()).toBe('docs/behaviour.md#missing_message');
    expect(await docs.getAttribute('href')).toBe(
      'https://github.com/nous-session-invariant/nous-session-invariant/blob/main/docs/behaviour.md#missing_message',
    );
    // The README's screenshot, taken here so it stays true: tall enough to show the last MISSING row.
    const last = (await page.locator('#detail .cell.missing').last().boundingBox())!;
    const height = Math.max(600, Math.ceil(last.y + last.height + 16));
    await page.setViewportSize({ width: 1000, height });
    const png = await page.screenshot({ path: screenshotPath() });
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(20)).toBe(height); // the PNG's own height: the rows above are in it
    expect(last.y + last.height).toBeLessThanOrEqual(height);
    await page.setViewportSize({ width: 1000, height: 600 });
  });

  it('breaks the explanation between words, never inside one', async () => {
    await select('app-missing');
    // Where a line of the explanation ends, the characters either side are never two of one word.
    const breaks: string[] = await page.evaluate(`(() => {
      const dd = [...document.querySelectorAll('#detail dt')].find((dt) => dt.textContent === 'explanation').nextElementSibling;
      const text = dd.firstChild;
      const range = document.createRange();
      const out = [];
      let top = null;
      for (let i = 0; i < text.length; i++) {
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (top !== null && rect.top > top + 2) out.push(text.data.slice(Math.max(0, i - 1), i + 1));
        top = rect.top;
      }
      return out;
    })()`);
    expect(breaks.length).toBeGreaterThan(0);
    for (const pair of breaks) expect(pair, `a line broken at ${JSON.stringify(pair)}`).not.toMatch(/^\w\w$/);
  });

  it('a duplicated question: extra in the request at its position', async () => {
    await select('app-extra');
    expect(await marked()).toEqual(['request 5 extra user']);
  });

  it('a reorder: the first message out of place, on both sides', async () => {
    await select('app-order');
    expect(await marked()).toEqual(['request 4 moved user', 'log 4 moved assistant']);
  });

  it('bound and implicit are told apart, in the list, the detail and the column title', async () => {
    await select('app-bound');
    expect(await marked()).toEqual(['request 1 extra user']);
    expect(await page.locator('#detail .badge').textContent()).toBe('bound');
    expect(await page.locator('#detail h3').nth(1).textContent()).toBe('session log (1 messages)');
    expect(await page.locator('button.violation[data-log="bound"]').count()).toBe(1);
    expect(await page.locator('button.violation[data-log="implicit"]').count()).toBe(3);
    await page.selectOption('#f-log', 'bound');
    expect(await page.locator('button.violation').allTextContents()).toEqual([expect.stringContaining('app-bound')]);
    await page.selectOption('#f-log', '');
  });

  it('the trace id links to Jaeger, and the span id is shown', async () => {
    await select('app-order');
    const link = page.locator('#detail a', { hasText: /^[0-9a-f]{32}$/ });
    const traceId = await link.textContent();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(await link.getAttribute('href')).toBe(`${JAEGER}/trace/${traceId}`);
    expect(await page.locator('#detail dd').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{16}$/)]));
  });

  it('is usable from the keyboard: Tab to the list, arrows to move, Enter to select', async () => {
    await page.locator('#f-text').focus();
    await page.keyboard.press('Tab');
    expect((await focused()).className).toBe('violation');
    const first = (await focused()).id;
    await page.keyboard.press('ArrowDown');
    const second = (await focused()).id;
    expect(second).not.toBe(first);
    await page.keyboard.press('Enter');
    expect(await page.locator(`button.violation[data-id="${second}"]`).getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('ArrowUp');
    expect((await focused()).id).toBe(first);
  });

  it('the text filter narrows the list', async () => {
    await page.fill('#f-text', 'app-ord');
    await expect.poll(() => page.locator('button.violation').count()).toBe(1);
    // One violation is one narrow mark on the chart, not a block as wide as a bucket.
    const chart = (await page.locator('#chart svg').boundingBox())!;
    const bars = await page.locator('#chart rect').evaluateAll((r) => r.map((e) => e.getBoundingClientRect().width));
    expect(bars).toHaveLength(1);
    expect(bars[0]).toBeLessThan(chart.width / 100);
    await page.fill('#f-text', '');
    await expect.poll(() => page.locator('button.violation').count()).toBe(4);
  });

  it('no prompt text reaches the page with content capture off', async () => {
    for (const service of ['app-missing', 'app-extra', 'app-order', 'app-bound']) {
      await select(service);
      const html = await page.content();
      for (const prompt of PROMPTS) expect(html).not.toContain(prompt);
    }
    // Nor what the page was sent, selected or not.
    const sent = await page.evaluate(() =>
      fetch('/api/stream').then(async (r) => {
        const reader = r.body!.getReader();
        let text = '';
        while (!text.includes('event: ready')) text += new TextDecoder().decode((await reader.read()).value);
        void reader.cancel();
        return text;
      }),
    );
    expect(sent).toContain('app-missing');
    for (const prompt of PROMPTS) expect(sent).not.toContain(prompt);
  });

  it('with content capture on, the previews are shown in place', async () => {
    await runApp('test/fixtures/zero-code/openai-chat.cjs', 'app-capture', 'http/protobuf', {
      FAULT: 'duplicate',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    await expect.poll(() => page.locator('button.violation', { hasText: 'app-capture' }).count(), { timeout: 5_000 }).toBe(1);
    await select('app-capture');
    expect(await page.locator('#detail .cell.extra .preview').textContent()).toBe('Umbrella in Lisbon?');
  });

  it('renders a hostile string as text, never as HTML', async () => {
    const value = (s: string) => ({ stringValue: s });
    const payload = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: value(HOSTILE) }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: HOSTILE,
                  attributes: [{ key: 'gen_ai.request.model', value: value(HOSTILE) }],
                  events: [
                    {
                      timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
                      name: 'nous.session.invariant.violation',
                      attributes: [
                        { key: 'nous.session.invariant.kind', value: value('extra_message') },
                        { key: 'nous.session.invariant.log', value: value('bound') },
                        { key: 'nous.session.invariant.index', value: { intValue: 0 } },
                        { key: 'nous.session.invariant.request_length', value: { intValue: 1 } },
                        { key: 'nous.session.invariant.log_length', value: { intValue: 0 } },
                        { key: 'nous.session.invariant.extra.count', value: { intValue: 1 } },
                        { key: 'nous.session.invariant.extra.roles', value: { arrayValue: { values: [value(HOSTILE)] } } },
                        { key: 'nous.session.invariant.extra.previews', value: { arrayValue: { values: [value(HOSTILE)] } } },
                        { key: 'gen_ai.agent.name', value: value(HOSTILE) },
                        { key: 'gen_ai.conversation.id', value: value(HOSTILE) },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(`${otlpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(response.status).toBe(200);
    await expect.poll(() => page.locator('button.violation', { hasText: HOSTILE }).count(), { timeout: 5_000 }).toBe(1);
    await page.locator('button.violation', { hasText: HOSTILE }).click();
    await expect.poll(() => page.locator('#detail .cell.extra .preview').textContent()).toBe(HOSTILE);
    expect(await page.locator('.group h2', { hasText: HOSTILE }).textContent()).toBe(`conversation ${HOSTILE}`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
  });

  it('groups a violation that names no conversation by its trace', async () => {
    const traceId = '1bf7651916cd43dd8448eb211c80319d';
    const event = {
      timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
      name: 'nous.session.invariant.violation',
      attributes: [
        { key: 'nous.session.invariant.kind', value: { stringValue: 'extra_message' } },
        { key: 'nous.session.invariant.log', value: { stringValue: 'bound' } },
      ],
    };
    const span = { traceId, spanId: 'c7ad6b7169203332', name: 'chat', events: [event] };
    const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'app-no-conversation' } }] };
    const response = await fetch(`${otlpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans: [span] }] }] }),
    });
    expect(response.status).toBe(200);
    await expect.poll(() => page.locator('.group h2', { hasText: traceId }).count(), { timeout: 5_000 }).toBe(1);
    expect(await page.locator('.group h2', { hasText: traceId }).textContent()).toBe(`trace ${traceId}`);
  });
});

/** Where the dropped-turn screenshot goes: the docs' copy only when asked for. */
function screenshotPath(): string {
  if (process.env.NOUS_UPDATE_SCREENSHOT === '1') return join(PACKAGE_ROOT, 'docs/viewer.png');
  return join(mkdtempSync(join(tmpdir(), 'nous-viewer-')), 'viewer.png');
}
