// Writes the ESM entry points as thin wrappers over the CommonJS build.
// One copy of the code serves both `require` and `import`, so an app that
// mixes them (a `--require` hook and an ESM agent, say) shares one session
// context, one set of meters and one warn-once state: no dual-package hazard.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const entries = ['index'];
const esmDir = new URL('../dist/esm/', import.meta.url);
mkdirSync(esmDir, { recursive: true });

for (const entry of entries) {
  const names = Object.keys(require(`../dist/cjs/${entry}.js`)).filter((n) => n !== 'default' && n !== '__esModule');
  const js = [
    `import cjs from '../cjs/${entry}.js';`,
    `export const { ${names.join(', ')} } = cjs;`,
    '',
  ].join('\n');
  writeFileSync(new URL(`${entry}.mjs`, esmDir), js);
  writeFileSync(new URL(`${entry}.d.mts`, esmDir), `export * from '../cjs/${entry}.js';\n`);
}

// `--import nous-session-invariant/register`: the ESM loader hook goes in
// first, limited to the SDK modules the instrumentation patches, then the
// same CommonJS registration `--require` runs.
writeFileSync(
  new URL('register.mjs', esmDir),
  [
    `import { createRequire, register } from 'node:module';`,
    `const require = createRequire(import.meta.url);`,
    `const { HOOKED_MODULES, HOOKED_INTERNAL_FILES } = require('../cjs/instrumentation/supported.js');`,
    `register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: [...HOOKED_MODULES, ...HOOKED_INTERNAL_FILES] } });`,
    `require('../cjs/register.js');`,
    '',
  ].join('\n'),
);
