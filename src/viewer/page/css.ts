// The page's styles. Marks are told apart by a word and a border as well as a colour.

import { KIND_COLOURS } from '../kinds';

/** `--{kind}: {colour};` for each kind: the variables the script and the marks colour by. */
const KIND_VARIABLES = Object.entries(KIND_COLOURS)
  .map(([kind, colour]) => `--${kind}: ${colour};`)
  .join(' ');

export const VIEWER_CSS = `
:root { --fg: #1f2937; --muted: #6b7280; --line: #e5e7eb; --bg: #fff; --sel: #eef2ff;
  ${KIND_VARIABLES} }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: baseline; gap: 1em; padding: 8px 16px; border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0; }
#status { color: var(--muted); }
#filters { display: flex; flex-wrap: wrap; gap: 12px; padding: 8px 16px; }
#chart { margin: 0 16px; }
#chart svg { display: block; width: 100%; height: 64px; border-bottom: 1px solid var(--line); }
.legend { display: flex; gap: 12px; font-size: 12px; color: var(--muted); }
.legend em { font-style: normal; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 4px; background: var(--c); }
main { display: grid; grid-template-columns: minmax(280px, 1fr) 2fr; gap: 16px; padding: 8px 16px; }
#list { max-height: 75vh; overflow: auto; border: 1px solid var(--line); }
.group h2 { font-size: 12px; margin: 0; padding: 4px 8px; background: #f9fafb; color: var(--muted); font-weight: 600; overflow-wrap: anywhere; }
button.violation { display: block; width: 100%; text-align: left; border: 0; border-bottom: 1px solid var(--line); background: none; padding: 6px 8px; font: inherit; cursor: pointer; }
button.violation:hover, button.violation:focus { background: #f3f4f6; outline: 2px solid #6366f1; outline-offset: -2px; }
button.violation[aria-current="true"] { background: var(--sel); }
.kind { font-weight: 600; color: var(--k, var(--fg)); }
.badge { display: inline-block; font-size: 11px; padding: 0 5px; border-radius: 8px; border: 1px solid currentColor; margin-left: 4px; }
.badge.implicit { color: #0369a1; }
.badge.bound { color: #15803d; }
.meta { color: var(--muted); font-size: 12px; }
.empty { color: var(--muted); padding: 8px; }
.empty p { margin: 0 0 6px; }
.command { margin: 0 0 6px; padding: 6px 8px; background: #f9fafb; border: 1px solid var(--line); border-radius: 4px; color: var(--fg); font: 12px/1.4 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.cell .tool { margin-left: 8px; font-family: ui-monospace, monospace; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.picture { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; margin-top: 8px; }
.picture h3 { font-size: 13px; margin: 0; }
.cell { border: 1px solid var(--line); border-radius: 4px; padding: 3px 6px; min-height: 26px; font-size: 12px; }
.cell.none { border: 1px dashed transparent; }
.cell.run { color: var(--muted); border-style: dashed; }
.cell.rest { color: var(--muted); }
.cell.missing { border: 2px solid var(--missing_message); background: #fef2f2; }
.cell.extra { border: 2px solid var(--extra_message); background: #fffbeb; }
.cell.moved { border: 2px solid var(--order); background: #f5f3ff; }
.cell .mark { font-weight: 700; text-transform: uppercase; font-size: 10px; margin-left: 6px; }
.cell .preview { display: block; color: var(--fg); font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
.notes { color: var(--muted); font-size: 12px; }
`;
