// Emits the viewer page's script, src/viewer/page/browser/viewer.ts (checked
// by `tsc -p tsconfig.page.json` just before), as the plain browser script
// dist/viewer/page/viewer.js the page server serves. Types are stripped; the
// script keeps its own shape (no module wrapper: it is not a module).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const source = readFileSync(new URL('../src/viewer/page/browser/viewer.ts', import.meta.url), 'utf8');
const { outputText } = ts.transpileModule(source, {
  compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.None, removeComments: false },
  fileName: 'viewer.ts',
});
const out = new URL('../dist/viewer/page/', import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL('viewer.js', out), outputText);
