// Packs the package as `npm publish` would and lints the tarball itself:
// publint (package.json fields, the exports map, the files shipped) and
// arethetypeswrong (types for every entry, from require and from import).
// Run by `npm run check:package` (CI does); needs `npm run build` first.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'nous-session-invariant-pack-'));
try {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { encoding: 'utf8' }));
  const tarball = join(dir, packed[0].filename);
  execFileSync('publint', ['run', tarball, '--strict'], { stdio: 'inherit' });
  // node16 resolution: the one that applies to the Node versions `engines` names (node10 has no exports maps).
  execFileSync('attw', [tarball, '--profile', 'node16'], { stdio: 'inherit' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
