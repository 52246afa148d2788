// The page's script, plain ES2020 run as is by the browser. It only ever sets
// text (textContent, attributes with fixed names): a received string is never
// parsed as HTML. Written without backticks so it can live in this string.

export const VIEWER_JS = String.raw`(function () {
  'use strict';
  var items = new Map();
  var config = { jaeger: null, capacity: 1000 };
  var selected = null;
  var pending = false;
  var KINDS = ['missing_message', 'extra_message', 'order', 'orphaned_tool_result', 'invalid_request'];
  var SVG = 'http://www.w3.org/2000/svg';
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function kindColour(kind) { return KINDS.indexOf(kind) >= 0 ? 'var(--' + kind + ')' : '#6b7280'; }
  function time(ms) { return ms ? new Date(ms).toLocaleTimeString() : ''; }
  function groupOf(v) { return v.conversation ? 'conversation ' + v.conversation : 'trace ' + (v.traceId || '(none)'); }

  function matches(v) {
    var kind = $('f-kind').value, log = $('f-log').value, service = $('f-service').value;
    var text = $('f-text').value.trim().toLowerCase();
    if (kind && v.kind !== kind) return false;
    if (log && v.log !== log) return false;
    if (service && v.service !== service) return false;
    if (!text) return true;
    return [v.service, v.agent, v.conversation, v.kind, v.log, v.provider, v.model, v.traceId, v.spanId, v.spanName, v.explanation]
      .some(function (s) { return typeof s === 'string' && s.toLowerCase().indexOf(text) >= 0; });
  }

  function upsert(v) {
    items.set(v.id, v);
    // Hold no more than the server does.
    while (items.size > config.capacity) items.delete(items.keys().next().value);
  }

  function fillSelect(id, values) {
    var select = $(id), current = select.value;
    var have = Array.prototype.map.call(select.options, function (o) { return o.value; });
    values.forEach(function (value) {
      if (value && have.indexOf(value) < 0) { var o = el('option', '', value); o.value = value; select.appendChild(o); }
    });
    select.value = current;
  }

  function schedule() {
    if (pending) return;
    pending = true;
    setTimeout(function () { pending = false; render(); }, 50);
  }

  function render() {
    var all = Array.from(items.values());
    fillSelect('f-kind', all.map(function (v) { return v.kind; }));
    fillSelect('f-service', all.map(function (v) { return v.service; }));
    var shown = all.filter(matches).sort(function (a, b) { return b.timeMs - a.timeMs || b.id - a.id; });
    $('status').textContent = all.length + ' violation' + (all.length === 1 ? '' : 's') + ' received, ' + shown.length + ' shown';
    renderChart(shown);
    renderList(shown);
    renderDetail();
  }

  function renderList(shown) {
    var list = $('list');
    var focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.id : undefined;
    list.textContent = '';
    if (shown.length === 0) { list.appendChild(el('p', 'empty', items.size ? 'No violation matches the filters.' : 'No violations yet.')); return; }
    var groups = new Map();
    shown.forEach(function (v) { var g = groupOf(v); if (!groups.has(g)) groups.set(g, []); groups.get(g).push(v); });
    groups.forEach(function (vs, name) {
      var group = el('section', 'group');
      group.appendChild(el('h2', '', name));
      vs.forEach(function (v) {
        var b = el('button', 'violation');
        b.type = 'button';
        b.dataset.id = String(v.id);
        b.dataset.kind = v.kind;
        b.dataset.log = v.log || '';
        if (v.id === selected) b.setAttribute('aria-current', 'true');
        var kind = el('span', 'kind', v.kind);
        kind.style.setProperty('--k', kindColour(v.kind));
        b.appendChild(kind);
        if (v.log) b.appendChild(el('span', 'badge ' + (v.log === 'implicit' ? 'implicit' : 'bound'), v.log));
        var meta = [time(v.timeMs), v.service, v.agent, [v.provider, v.model].filter(Boolean).join(' ')].filter(Boolean).join(' · ');
        b.appendChild(el('div', 'meta', meta));
        b.addEventListener('click', function () { selected = v.id; render(); });
        group.appendChild(b);
      });
      list.appendChild(group);
    });
    if (focused) { var again = list.querySelector('button[data-id="' + focused + '"]'); if (again) again.focus(); }
  }

  function renderChart(shown) {
    var figure = $('chart');
    figure.textContent = '';
    if (shown.length === 0) return;
    var W = 600, H = 70, BUCKETS = 30;
    var times = shown.map(function (v) { return v.timeMs || v.receivedMs; });
    var lo = Math.min.apply(null, times), hi = Math.max.apply(null, times);
    var width = Math.max(1, hi - lo + 1);
    var counts = [];
    for (var i = 0; i < BUCKETS; i++) counts.push({});
    shown.forEach(function (v, n) {
      var b = Math.min(BUCKETS - 1, Math.floor(((times[n] - lo) / width) * BUCKETS));
      counts[b][v.kind] = (counts[b][v.kind] || 0) + 1;
    });
    var max = Math.max.apply(null, counts.map(function (c) { return Object.keys(c).reduce(function (s, k) { return s + c[k]; }, 0); }));
    var chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', preserveAspectRatio: 'none' });
    var title = svg('title', {});
    title.textContent = shown.length + ' violations from ' + new Date(lo).toLocaleTimeString() + ' to ' + new Date(hi).toLocaleTimeString();
    chart.appendChild(title);
    var bw = W / BUCKETS;
    counts.forEach(function (c, b) {
      var y = H;
      Object.keys(c).sort().forEach(function (kind) {
        var h = (c[kind] / max) * (H - 4);
        y -= h;
        var rect = svg('rect', { x: b * bw + 1, y: y, width: bw - 2, height: h, fill: kindColour(kind), 'data-kind': kind });
        var t = svg('title', {});
        t.textContent = c[kind] + ' ' + kind;
        rect.appendChild(t);
        chart.appendChild(rect);
      });
    });
    figure.appendChild(chart);
    var legend = el('div', 'legend');
    legend.appendChild(el('em', '', time(lo) + ' – ' + time(hi) + ', at most ' + max + ' per bar'));
    KINDS.concat(shown.map(function (v) { return v.kind; })).filter(function (k, n, all) { return all.indexOf(k) === n; })
      .filter(function (k) { return shown.some(function (v) { return v.kind === k; }); })
      .forEach(function (k) { var s = el('span', '', k); s.style.setProperty('--c', kindColour(k)); legend.appendChild(s); });
    figure.appendChild(legend);
  }

  function fact(dl, name, value, node) {
    if (!value && !node) return;
    dl.appendChild(el('dt', '', name));
    var dd = el('dd', '', node ? undefined : value);
    if (node) dd.appendChild(node);
    dl.appendChild(dd);
  }

  function traceLink(traceId) {
    if (!config.jaeger || !traceId) return null;
    var url;
    try { url = new URL(config.jaeger.replace(/\/+$/, '') + '/trace/' + encodeURIComponent(traceId)); } catch (e) { return null; }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    var a = el('a', '', traceId);
    a.href = url.href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    return a;
  }

  function renderDetail() {
    var detail = $('detail');
    var v = selected === null ? undefined : items.get(selected);
    detail.textContent = '';
    if (!v) { detail.appendChild(el('p', 'empty', 'Select a violation (arrow keys, Enter) to draw the request beside the log.')); return; }
    var h = el('h2', 'kind', v.kind);
    h.style.setProperty('--k', kindColour(v.kind));
    if (v.log) h.appendChild(el('span', 'badge ' + (v.log === 'implicit' ? 'implicit' : 'bound'), v.log));
    detail.appendChild(h);
    var dl = el('dl');
    var a = v.attributes || {};
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
    detail.appendChild(dl);
    if (v.layout) detail.appendChild(picture(v.layout));
  }

  function cellNode(side, cell) {
    if (!cell) { var none = el('div', 'cell none'); none.dataset.side = side; return none; }
    var classes = 'cell ' + cell.mark + (cell.count > 1 && (cell.mark === 'same' || cell.mark === 'rest') ? ' run' : '');
    var node = el('div', classes);
    node.dataset.side = side;
    node.dataset.mark = cell.mark;
    node.dataset.position = String(cell.position);
    node.dataset.count = String(cell.count);
    if (cell.role) node.dataset.role = cell.role;
    var last = cell.position + cell.count - 1;
    var where = cell.count > 1 ? '#' + cell.position + '–' + last : '#' + cell.position;
    var label;
    if (cell.count > 1 && (cell.mark === 'extra' || cell.mark === 'missing')) label = where + ' · ' + cell.count + ' more ' + cell.mark;
    else if (cell.count > 1) label = where + ' · ' + cell.count + ' messages' + (cell.mark === 'same' ? ' that match' : '');
    else label = where + (cell.role ? ' ' + cell.role : '');
    node.appendChild(el('span', '', label));
    if (cell.mark === 'missing' || cell.mark === 'extra' || cell.mark === 'moved') node.appendChild(el('span', 'mark', cell.mark));
    if (cell.preview) node.appendChild(el('span', 'preview', cell.preview));
    return node;
  }

  function picture(layout) {
    var box = el('div');
    var grid = el('div', 'picture');
    grid.setAttribute('role', 'table');
    grid.setAttribute('aria-label', 'the request beside the ' + layout.logTitle);
    grid.appendChild(el('h3', '', 'request (' + layout.requestLength + ' messages)'));
    grid.appendChild(el('h3', '', layout.logTitle + ' (' + layout.logLength + ' messages)'));
    layout.rows.forEach(function (row) {
      grid.appendChild(cellNode('request', row.request));
      grid.appendChild(cellNode('log', row.log));
    });
    box.appendChild(grid);
    var notes = el('ul', 'notes');
    layout.notes.forEach(function (n) { notes.appendChild(el('li', '', n)); });
    box.appendChild(notes);
    return box;
  }

  // Arrow keys move between violations; Enter or Space (the buttons' own) selects.
  $('list').addEventListener('keydown', function (e) {
    var buttons = Array.from($('list').querySelectorAll('button.violation'));
    var at = buttons.indexOf(document.activeElement);
    var to = e.key === 'ArrowDown' ? at + 1 : e.key === 'ArrowUp' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : null;
    if (to === null || buttons.length === 0) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, to))].focus();
  });
  ['f-kind', 'f-log', 'f-service'].forEach(function (id) { $(id).addEventListener('change', render); });
  $('f-text').addEventListener('input', schedule);

  // Server-sent events: the config and every violation held, then each new or completed one.
  var source = new EventSource('/api/stream');
  source.addEventListener('config', function (e) {
    config = JSON.parse(e.data);
    items.clear();
  });
  source.addEventListener('violation', function (e) { upsert(JSON.parse(e.data)); schedule(); });
  source.addEventListener('ready', function () { render(); });
  source.onerror = function () { $('status').textContent = 'disconnected, retrying…'; };
})();
`;
