// The page's markup: a shell the script fills in. Served as is; no CDN, no framework.

import { KIND_COLOURS } from '../kinds';

export const VIEWER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>nous-session-invariant · violations</title>
<link rel="stylesheet" href="/viewer.css">
</head>
<body>
<header>
  <h1>Session invariant violations</h1>
  <span id="status" role="status">connecting…</span>
</header>
<section id="filters" aria-label="Filters">
  <label>Kind <select id="f-kind"><option value="">all</option></select></label>
  <label>Log <select id="f-log"><option value="">all</option><option value="bound">bound</option><option value="implicit">implicit</option></select></label>
  <label>Service <select id="f-service"><option value="">all</option></select></label>
  <label>Filter <input id="f-text" type="search" placeholder="agent, conversation, model, trace id…"></label>
</section>
<figure id="chart" aria-label="Violations per kind over time"></figure>
<main>
  <nav id="list" aria-label="Violations, grouped by conversation"><p class="empty">No violations yet. Run an app with OTEL_EXPORTER_OTLP_ENDPOINT pointing here.</p></nav>
  <section id="detail" aria-live="polite"><p class="empty">Select a violation (arrow keys, Enter) to draw the request beside the log.</p></section>
</main>
<script id="kinds" type="application/json">${JSON.stringify(Object.keys(KIND_COLOURS))}</script>
<script src="/viewer.js"></script>
</body>
</html>
`;
