// The page's script as the page server serves it: page/browser/viewer.ts,
// emitted by `npm run build` as dist/viewer/page/viewer.js (next to this
// module's build). Run from the sources (the tests), the built one is read.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const BUILT = [join(__dirname, 'viewer.js'), join(__dirname, '..', '..', '..', 'dist', 'viewer', 'page', 'viewer.js')];

/** A page that says what is missing, rather than a blank one. */
const NOT_BUILT = `document.getElementById('status').textContent = 'the page script is not built: run npm run build';\n`;

/** The page's script, read once. */
export const VIEWER_JS: string = readBuilt();

function readBuilt(): string {
  const found = BUILT.find((path) => existsSync(path));
  return found === undefined ? NOT_BUILT : readFileSync(found, 'utf8');
}
