// The page's DOM builders, shared by its scripts (dom.ts, picture.ts, viewer.ts:
// plain scripts, concatenated in that order by scripts/build-page.mjs). They
// only ever set text and fixed attribute names: a received string is never
// parsed as HTML.
/* exported byId, el, svg */

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function el(tag: string, className?: string, text?: unknown): HTMLElement {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG_NAMESPACE, tag);
  Object.keys(attrs).forEach((k) => e.setAttribute(k, String(attrs[k])));
  return e;
}
