// The page's script, run by the browser: the list, the chart, the detail and
// the live stream. Checked by tsc with the DOM library (tsconfig.page.json)
// and by eslint; `npm run build` emits it, after dom.ts and picture.ts (the
// DOM builders and the request-beside-log drawing it calls), as the one
// script dist/viewer/page/viewer.js (scripts/build-page.mjs), which the page
// server serves. Plain scripts, not modules: types come from the server's own
// modules (`import(...)` types only), values from the page. It only ever sets
// text (textContent, attributes with fixed names): a received string is never
// parsed as HTML. The kinds, in legend order, come from the markup
// (viewer/kinds.ts, the one list; their colours are the styles' variables).

type StoredViolation = import('../../store').StoredViolation;

interface PageConfig {
  jaeger: string | null;
  capacity: number;
  /** The viewer's OTLP receiver, for the empty page's hint. */
  otlp?: string | null;
}

(() => {
  'use strict';
  const items = new Map<number, StoredViolation>();
  let config: PageConfig = { jaeger: null, capacity: 1000 };
  let selected: number | null = null;
  let pending = false;
  const KINDS = JSON.parse(byId('kinds').textContent ?? '[]') as string[];

  function kindColour(kind: string): string {
    return KINDS.indexOf(kind) >= 0 ? 'var(--' + kind + ')' : '#6b7280';
  }
  function time(ms: number | undefined): string {
    return ms ? new Date(ms).toLocaleTimeString() : '';
  }
  function groupOf(v: StoredViolation): string {
    return v.conversation ? 'conversation ' + v.conversation : 'trace ' + (v.traceId || '(none)');
  }

  function matches(v: StoredViolation): boolean {
    const kind = byId<HTMLSelectElement>('f-kind').value;
    const log = byId<HTMLSelectElement>('f-log').value;
    const service = byId<HTMLSelectElement>('f-service').value;
    const text = byId<HTMLInputElement>('f-text').value.trim().toLowerCase();
    if (kind && v.kind !== kind) return false;
    if (log && v.log !== log) return false;
    if (service && v.service !== service) return false;
    if (!text) return true;
    return [v.service, v.agent, v.conversation, v.kind, v.log, v.provider, v.model, v.traceId, v.spanId, v.spanName, v.explanation].some(
      (s) => typeof s === 'string' && s.toLowerCase().indexOf(text) >= 0,
    );
  }

  function upsert(v: StoredViolation): void {
    items.set(v.id, v);
    // Hold no more than the server does.
    while (items.size > config.capacity) items.delete(items.keys().next().value!);
  }

  // The one place that decides a filter's options: the values the page holds now (the kinds in legend order, then
  // any other, the rest sorted), so they shrink as violations are dropped. The value chosen stays listed while it is
  // chosen, even once nothing held has it, so a filter never changes under the user.
  function fillSelect(id: string, values: readonly (string | undefined)[], first: readonly string[] = []): void {
    const select = byId<HTMLSelectElement>(id);
    const current = select.value;
    const held = new Set(values.filter((value): value is string => typeof value === 'string' && value !== ''));
    if (current) held.add(current);
    const wanted = first
      .filter((value) => held.has(value))
      .concat(
        Array.from(held)
          .filter((value) => first.indexOf(value) < 0)
          .sort(),
      );
    const have = Array.from(select.options, (o) => o.value).slice(1);
    if (have.length === wanted.length && have.every((value, n) => value === wanted[n])) return;
    while (select.options.length > 1) select.remove(1);
    wanted.forEach((value) => {
      const o = el('option', '', value) as HTMLOptionElement;
      o.value = value;
      select.appendChild(o);
    });
    select.value = current;
  }

  function schedule(): void {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      render();
    }, 50);
  }

  function render(): void {
    const all = Array.from(items.values());
    fillSelect(
      'f-kind',
      all.map((v) => v.kind),
      KINDS,
    );
    fillSelect(
      'f-service',
      all.map((v) => v.service),
    );
    const shown = all.filter(matches).sort((a, b) => b.timeMs - a.timeMs || b.id - a.id);
    byId('status').textContent = all.length + ' violation' + (all.length === 1 ? '' : 's') + ' received, ' + shown.length + ' shown';
    renderChart(shown);
    renderList(shown);
    renderDetail();
  }

  function badge(log: string): HTMLElement {
    return el('span', 'badge ' + (log === 'implicit' ? 'implicit' : 'bound'), log);
  }

  function renderList(shown: readonly StoredViolation[]): void {
    const list = byId('list');
    const active = document.activeElement;
    const focused = active instanceof HTMLElement ? active.dataset.id : undefined;
    list.textContent = '';
    if (shown.length === 0) {
      list.appendChild(items.size ? el('p', 'empty', 'No violation matches the filters.') : startHint());
      return;
    }
    const groups = new Map<string, StoredViolation[]>();
    shown.forEach((v) => {
      const g = groupOf(v);
      const members = groups.get(g);
      if (members) members.push(v);
      else groups.set(g, [v]);
    });
    groups.forEach((vs, name) => {
      const group = el('section', 'group');
      group.appendChild(el('h2', '', name));
      vs.forEach((v) => {
        const b = el('button', 'violation') as HTMLButtonElement;
        b.type = 'button';
        b.dataset.id = String(v.id);
        b.dataset.kind = v.kind;
        b.dataset.log = v.log || '';
        if (v.id === selected) b.setAttribute('aria-current', 'true');
        const kind = el('span', 'kind', v.kind);
        kind.style.setProperty('--k', kindColour(v.kind));
        b.appendChild(kind);
        if (v.log) b.appendChild(badge(v.log));
        const meta = [time(v.timeMs), v.service, v.agent, [v.provider, v.model].filter(Boolean).join(' ')].filter(Boolean).join(' · ');
        b.appendChild(el('div', 'meta', meta));
        b.addEventListener('click', () => {
          selected = v.id;
          render();
        });
        group.appendChild(b);
      });
      list.appendChild(group);
    });
    if (focused) list.querySelector<HTMLElement>('button[data-id="' + focused + '"]')?.focus();
  }

  /** What to run to send violations here: the register entry, with the exporters pointed at this viewer. */
  function startHint(): HTMLElement {
    const hint = el('div', 'empty');
    hint.appendChild(el('p', '', 'No violations yet. Start your app with the package and its telemetry sent here:'));
    // The viewer names its receiver; an older one did not: its default port, on this page's host.
    const endpoint = config.otlp || location.protocol + '//' + location.hostname + ':4318';
    hint.appendChild(
      el(
        'pre',
        'command',
        'NODE_OPTIONS="--require nous-session-invariant/register" \\\n  OTEL_EXPORTER_OTLP_ENDPOINT=' + endpoint + ' node app.js',
      ),
    );
    hint.appendChild(el('p', '', 'For an ES module app, use --import instead of --require. A correct run sends nothing to show.'));
    return hint;
  }

  function renderChart(shown: readonly StoredViolation[]): void {
    const figure = byId('chart');
    figure.textContent = '';
    if (shown.length === 0) return;
    const W = 600;
    const H = 70;
    const BUCKETS = 30;
    // The narrowest mark, in viewBox units: one violation, or a burst within a few ms, reads as a tick at its time.
    const MARK = 3;
    const times = shown.map((v) => v.timeMs || v.receivedMs);
    const lo = Math.min(...times);
    const hi = Math.max(...times);
    const width = Math.max(1, hi - lo + 1);
    // Where a time falls; with a single instant, in the middle, so the mark stands alone.
    const xOf = (t: number): number => (hi === lo ? (W - MARK) / 2 : ((t - lo) / (hi - lo)) * (W - MARK));
    const counts: Record<string, number>[] = [];
    const spans: { first: number; last: number }[] = [];
    for (let i = 0; i < BUCKETS; i++) counts.push({});
    shown.forEach((v, n) => {
      const b = Math.min(BUCKETS - 1, Math.floor(((times[n]! - lo) / width) * BUCKETS));
      const bucket = counts[b]!;
      bucket[v.kind] = (bucket[v.kind] ?? 0) + 1;
      const span = spans[b];
      if (span === undefined) spans[b] = { first: times[n]!, last: times[n]! };
      else {
        span.first = Math.min(span.first, times[n]!);
        span.last = Math.max(span.last, times[n]!);
      }
    });
    const max = Math.max(...counts.map((c) => Object.keys(c).reduce((s, k) => s + c[k]!, 0)));
    const chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', preserveAspectRatio: 'none' });
    const title = svg('title', {});
    title.textContent = shown.length + ' violations from ' + new Date(lo).toLocaleTimeString() + ' to ' + new Date(hi).toLocaleTimeString();
    chart.appendChild(title);
    counts.forEach((c, b) => {
      const span = spans[b];
      if (span === undefined) return;
      // A bar as wide as the time its violations cover, at least a mark: its width says how long, its height how many.
      const x = xOf(span.first);
      const barWidth = Math.max(MARK, xOf(span.last) - x);
      let y = H;
      Object.keys(c)
        .sort()
        .forEach((kind) => {
          const h = (c[kind]! / max) * (H - 4);
          y -= h;
          const rect = svg('rect', { x: x, y: y, width: barWidth, height: h, fill: kindColour(kind), 'data-kind': kind });
          const t = svg('title', {});
          t.textContent = c[kind] + ' ' + kind;
          rect.appendChild(t);
          chart.appendChild(rect);
        });
    });
    figure.appendChild(chart);
    const legend = el('div', 'legend');
    legend.appendChild(el('em', '', time(lo) + ' – ' + time(hi) + ', at most ' + max + ' per bar'));
    KINDS.concat(shown.map((v) => v.kind))
      .filter((k, n, all) => all.indexOf(k) === n)
      .filter((k) => shown.some((v) => v.kind === k))
      .forEach((k) => {
        const s = el('span', '', k);
        s.style.setProperty('--c', kindColour(k));
        legend.appendChild(s);
      });
    figure.appendChild(legend);
  }

  function fact(dl: HTMLElement, name: string, value: unknown, node?: Node | null): void {
    if (!value && !node) return;
    dl.appendChild(el('dt', '', name));
    const dd = el('dd', '', node ? undefined : value);
    if (node) dd.appendChild(node);
    dl.appendChild(dd);
  }

  function traceLink(traceId: string): HTMLElement | null {
    if (!config.jaeger || !traceId) return null;
    let url: URL;
    try {
      url = new URL(config.jaeger.replace(/\/+$/, '') + '/trace/' + encodeURIComponent(traceId));
    } catch {
      return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const a = el('a', '', traceId) as HTMLAnchorElement;
    a.href = url.href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    return a;
  }

  /** The docs section as a link, shown as its path and section (`docs/behaviour.md#missing_message`). */
  function docsLink(href: string | undefined): HTMLElement | null {
    if (!href) return null;
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return null;
    }
    if (url.protocol !== 'https:') return null;
    const a = el('a', '', url.pathname.split('/').slice(-2).join('/') + url.hash) as HTMLAnchorElement;
    a.href = url.href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    return a;
  }

  function renderDetail(): void {
    const detail = byId('detail');
    const v = selected === null ? undefined : items.get(selected);
    detail.textContent = '';
    if (!v) {
      detail.appendChild(el('p', 'empty', 'Select a violation (arrow keys, Enter) to draw the request beside the log.'));
      return;
    }
    const h = el('h2', 'kind', v.kind);
    h.style.setProperty('--k', kindColour(v.kind));
    if (v.log) h.appendChild(badge(v.log));
    detail.appendChild(h);
    const dl = el('dl');
    const a = v.attributes || {};
    fact(dl, 'time', v.timeMs ? new Date(v.timeMs).toLocaleString() : '');
    fact(dl, 'service', v.service);
    fact(dl, 'agent', v.agent);
    fact(dl, 'conversation', v.conversation);
    fact(dl, 'provider', v.provider);
    fact(dl, 'model', v.model);
    fact(dl, 'span', v.spanName);
    fact(dl, 'mode', v.mode);
    fact(dl, 'trace id', v.traceId, traceLink(v.traceId));
    fact(dl, 'span id', v.spanId);
    fact(dl, 'reason', a['nous.session.invariant.reason']);
    fact(dl, 'tool call id', a['nous.session.invariant.tool_call_id']);
    fact(dl, 'explanation', v.explanation);
    fact(dl, 'fix', v.fix);
    fact(dl, 'docs', v.docs, docsLink(v.docs));
    detail.appendChild(dl);
    if (v.layout) detail.appendChild(picture(v.layout));
  }

  // Arrow keys move between violations; Enter or Space (the buttons' own) selects.
  byId('list').addEventListener('keydown', (e) => {
    const buttons = Array.from(byId('list').querySelectorAll<HTMLElement>('button.violation'));
    const at = buttons.indexOf(document.activeElement as HTMLElement);
    const to =
      e.key === 'ArrowDown' ? at + 1 : e.key === 'ArrowUp' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : null;
    if (to === null || buttons.length === 0) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, to))]!.focus();
  });
  ['f-kind', 'f-log', 'f-service'].forEach((id) => byId(id).addEventListener('change', render));
  byId('f-text').addEventListener('input', schedule);

  // Server-sent events: the config and every violation held, then each new or completed one.
  const source = new EventSource('/api/stream');
  source.addEventListener('config', (e) => {
    config = JSON.parse(e.data as string) as PageConfig;
    items.clear();
  });
  source.addEventListener('violation', (e) => {
    upsert(JSON.parse(e.data as string) as StoredViolation);
    schedule();
  });
  source.addEventListener('ready', () => render());
  source.onerror = () => {
    byId('status').textContent = 'disconnected, retrying…';
  };
})();
