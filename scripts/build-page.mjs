// Emits the viewer page's scripts, src/viewer/page/browser/*.ts (checked by
// `tsc -p tsconfig.page.json` just before), as the one plain browser script
// dist/viewer/page/viewer.js the page server serves: each file's types
// stripped, the files joined in the order below (the builders before the
// script that calls them). No module wrapper and no bundler: they are plain
// scripts sharing the page's scope.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const FILES = ['dom.ts', 'picture.ts', 'viewer.ts'];

const parts = FILES.map((file) => {
  const source = readFileSync(new URL(`../src/viewer/page/browser/${file}`, import.meta.url), 'utf8');
  return ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.None, removeComments: false },
    fileName: file,
  }).outputText;
});
const out = new URL('../dist/viewer/page/', import.meta.url);
mkdirSync(out, { recursive: true });
// Strict for the whole joined script, as each file was checked.
writeFileSync(new URL('viewer.js', out), ["'use strict';", ...parts].join('\n'));
