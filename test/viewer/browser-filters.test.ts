// The page's Kind and Service filters list what the page holds now, not every
// value it was ever sent: a viewer keeping 3 violations is sent 12 (each with
// its own service, several with kinds no list names), and its options are the
// 3 held. In Debian's chromium; skipped with one line when it is not installed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireProgram } from '../support/tools';
import { openInChromium, startViewerBin, type OpenPage, type RunningViewer } from '../support/viewer-browser';

const runs = requireProgram('chromium', 'the viewer filter tests');
const HELD = 3;

let viewer: RunningViewer;
let open: OpenPage;
let sent = 0;

/** Sends one violation of `kind` from `service` to the viewer's OTLP port, as JSON. */
async function send(service: string, kind: string): Promise<void> {
  sent += 1;
  const event = {
    timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
    name: 'nous.session.invariant.violation',
    attributes: [
      { key: 'nous.session.invariant.kind', value: { stringValue: kind } },
      { key: 'nous.session.invariant.log', value: { stringValue: 'implicit' } },
    ],
  };
  const span = { traceId: sent.toString(16).padStart(32, '0'), spanId: sent.toString(16).padStart(16, '0'), name: 'chat', events: [event] };
  const resource = { attributes: [{ key: 'service.name', value: { stringValue: service } }] };
  const response = await fetch(`${viewer.otlpUrl}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans: [span] }] }] }),
  });
  expect(response.status).toBe(200);
}

function options(id: string): Promise<string[]> {
  return open.page.locator(`#${id} option`).evaluateAll((all) => all.map((o) => o.getAttribute('value') ?? ''));
}

/** Waits until the page shows the last violation sent (from `last`) and holds as many as the viewer keeps. */
async function settled(last: string): Promise<void> {
  const held = Math.min(sent, HELD);
  await expect.poll(() => open.page.locator('button.violation', { hasText: last }).count(), { timeout: 5_000 }).toBe(1);
  await expect
    .poll(() => open.page.locator('#status').textContent(), { timeout: 5_000 })
    .toMatch(new RegExp(`^${held} violations? received`));
  await expect.poll(() => open.page.locator('button.violation').count()).toBe(held);
}

describe.runIf(runs)('the viewer page’s filters', () => {
  beforeAll(async () => {
    viewer = await startViewerBin(['--max-violations', String(HELD)]);
    open = await openInChromium(viewer.pageUrl);
    await open.page.waitForFunction("document.getElementById('status').textContent.startsWith('0 violations')");
  });

  afterAll(async () => {
    await open?.close();
    viewer?.stop();
  });

  it('offer the services and kinds held, in legend order then sorted, and shrink as old ones are dropped', async () => {
    const kinds = ['order', 'made_up_kind_1', 'missing_message', 'made_up_kind_2'];
    for (let n = 0; n < 12; n++) {
      const service = `service-${String(n).padStart(2, '0')}`;
      await send(service, kinds[n % kinds.length]!);
      await settled(service);
    }
    // Held: service-09 (made_up_kind_1), service-10 (missing_message), service-11 (made_up_kind_2).
    expect(await options('f-service')).toEqual(['', 'service-09', 'service-10', 'service-11']);
    expect(await options('f-kind')).toEqual(['', 'missing_message', 'made_up_kind_1', 'made_up_kind_2']);
  });

  it('keep the value chosen while it is chosen, then drop it once another is', async () => {
    await open.page.selectOption('#f-service', 'service-09');
    await expect.poll(() => open.page.locator('button.violation').count()).toBe(1);
    await send('service-12', 'order');
    await expect.poll(() => open.page.locator('#list .empty').textContent()).toBe('No violation matches the filters.');
    // service-09 is no longer held, but it is still the filter chosen.
    expect(await options('f-service')).toEqual(['', 'service-09', 'service-10', 'service-11', 'service-12']);
    expect(await open.page.locator('#f-service').inputValue()).toBe('service-09');
    await open.page.selectOption('#f-service', '');
    await settled('service-12');
    expect(await options('f-service')).toEqual(['', 'service-10', 'service-11', 'service-12']);
    expect(await options('f-kind')).toEqual(['', 'missing_message', 'order', 'made_up_kind_2']);
  });
});
