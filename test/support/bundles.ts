// Real esbuild bundles of the fixtures under test/fixtures/bundles, as apps
// ship them: every package inlined but those named `external` (left for
// Node to load from node_modules at run time).

import { build } from 'esbuild';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './run-node';

export const BUNDLE_FIXTURES = join(PACKAGE_ROOT, 'test/fixtures/bundles');

/** Bundles `entry` (a file under test/fixtures/bundles) to `outfile` for Node, as CommonJS or, for an `.mjs` outfile, as an ES module. */
export async function bundle(entry: string, outfile: string, external: string[] = []): Promise<void> {
  const esm = outfile.endsWith('.mjs');
  await build({
    entryPoints: [join(BUNDLE_FIXTURES, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: esm ? 'esm' : 'cjs',
    external,
    logLevel: 'error',
    // What ESM bundles for Node carry, so that inlined CommonJS can still require Node's own modules.
    ...(esm ? { banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } } : {}),
  });
}
