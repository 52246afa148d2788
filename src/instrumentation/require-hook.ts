// The one place that decides which `require` calls the package looks at: a
// wrapper of Node's `Module._load` that reacts only to the SDK packages the
// integrations patch, told by the bare request's package name (`openai`,
// `@anthropic-ai/sdk/...`), or, for a package whose internal files are
// patched, by a relative request from inside its folder naming one of those
// files. Every other `require` passes straight through: nothing is resolved
// or read for it. `@opentelemetry/instrumentation`'s hook resolves every
// required file again, and every file of a hooked package twice, which cost
// more at a cold start than the 50 ms the package allows itself
// (docs/performance.md "Cold start").
//
// One wrapper per copy of the package, installed at the first hook and never
// removed (another tool may have wrapped `_load` over it since): with nothing
// hooked it only looks the name up.

import Module from 'node:module';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { packageManifest } from './package-versions';

/**
 * Called once per loaded file of a hooked package (its main file, or an
 * internal file of a package hooked with `files`) with its exports, its name
 * (`openai`, or `@openai/agents-core/dist/runner/modelRetry.js`) and the
 * package folder; returns the exports `require` hands on. The same
 * signature as require-in-the-middle's, so the ESM hook shares the callback.
 */
export type OnRequire = (exports: unknown, name: string, baseDir: string) => unknown;

type Load = (request: string, parent: NodeModule | undefined, isMain: boolean) => unknown;
interface ModuleInternals {
  _load: Load;
  _resolveFilename(request: string, parent: NodeModule | undefined, isMain: boolean): string;
  _nodeModulePaths(from: string): string[];
}

interface HookedPackage {
  listeners: Set<OnRequire>;
  /** The base names (no extension) of the internal files hooked: a relative request ending in another name is not resolved. */
  files: Set<string>;
}

/** A file already handed to the listeners: the exports it had, and those `require` hands on. */
interface Seen {
  original: unknown;
  patched: unknown;
}

const internals = Module as unknown as ModuleInternals;
const hooked = new Map<string, HookedPackage>();
/** The folders (with a trailing separator) of hooked packages with internal files hooked, and their package names. */
const foldersWithFiles = new Map<string, string>();
/** The main file of each such folder. */
const mainFiles = new Map<string, string | undefined>();
const seen = new Map<string, Seen>();
/** Files whose load is under way: a circular `require` of one gets its exports as they are. */
const loading = new Set<string>();
let originalLoad: Load | undefined;

/**
 * Calls `onRequire` for every file of `name` loaded from now on that the
 * hook reports: its main file, and the internal files whose path within the
 * package is one of `files` (`dist/runner/modelRetry.js`). Returns what stops
 * the calls.
 */
export function hookRequire(name: string, files: readonly string[], onRequire: OnRequire): () => void {
  installOnce();
  let entry = hooked.get(name);
  if (!entry) hooked.set(name, (entry = { listeners: new Set(), files: new Set() }));
  for (const file of files) entry.files.add(baseName(file));
  entry.listeners.add(onRequire);
  const hookedEntry = entry;
  return () => {
    hookedEntry.listeners.delete(onRequire);
  };
}

function installOnce(): void {
  if (originalLoad) return;
  const load = internals._load;
  originalLoad = load;
  internals._load = function _load(this: unknown, request: string, parent: NodeModule | undefined, isMain: boolean): unknown {
    const name = hookedPackageOf(request, parent);
    if (name === undefined) return load.call(this, request, parent, isMain);
    return loadHooked(this, load, request, parent, isMain, name);
  };
}

/**
 * The hooked package `request` may load, if any: by its bare name; by an
 * absolute path inside `node_modules/<name>` (`require(require.resolve('ai'))`);
 * or, for a package with hooked internal files, by a relative request from
 * inside its folder that ends in one of their names.
 */
function hookedPackageOf(request: unknown, parent: NodeModule | undefined): string | undefined {
  if (typeof request !== 'string' || request.length === 0) return undefined;
  const first = request.charCodeAt(0);
  if (first === 46 /* . */) return relativeHooked(request, parent);
  if (isAbsolute(request)) return absoluteHooked(request);
  if (hooked.has(request)) return request;
  const slash = request.indexOf('/');
  if (slash < 0) return undefined;
  // `@scope/name/file` or `name/file`.
  const end = first === 64 /* @ */ ? request.indexOf('/', slash + 1) : slash;
  return end > 0 && hooked.has(request.slice(0, end)) ? request.slice(0, end) : undefined;
}

function relativeHooked(request: string, parent: NodeModule | undefined): string | undefined {
  if (foldersWithFiles.size === 0 || typeof parent?.filename !== 'string') return undefined;
  const entry = hookedFolderOf(parent.filename);
  if (entry === undefined) return undefined;
  return hooked.get(entry[1])?.files.has(baseName(request)) ? entry[1] : undefined;
}

const NODE_MODULES = `${sep}node_modules${sep}`;

function absoluteHooked(path: string): string | undefined {
  const at = path.lastIndexOf(NODE_MODULES);
  if (at < 0) return undefined;
  const start = at + NODE_MODULES.length;
  let end = path.indexOf(sep, start);
  if (path.charCodeAt(start) === 64 /* @ */ && end > 0) end = path.indexOf(sep, end + 1);
  if (end < 0) return undefined;
  const name = path.slice(start, end).split(sep).join('/');
  return hooked.has(name) ? name : undefined;
}

function hookedFolderOf(filename: string): [folder: string, name: string] | undefined {
  for (const entry of foldersWithFiles) if (filename.startsWith(entry[0])) return entry;
  return undefined;
}

/** `dist/runner/modelRetry.js` → `modelRetry`. */
function baseName(path: string): string {
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot > 0 && /^\.(c|m)?js$/.test(last.slice(dot)) ? last.slice(0, dot) : last;
}

function loadHooked(self: unknown, load: Load, request: string, parent: NodeModule | undefined, isMain: boolean, name: string): unknown {
  let filename: string;
  try {
    filename = internals._resolveFilename(request, parent, isMain);
  } catch {
    return load.call(self, request, parent, isMain); // it throws the same error, as Node's own
  }
  if (loading.has(filename)) return load.call(self, request, parent, isMain);
  const folder = packageFolder(filename, name, request.charCodeAt(0) === 46);
  if (folder === undefined) return load.call(self, request, parent, isMain);
  const entry = hooked.get(name)!;
  if (entry.files.size > 0 && !foldersWithFiles.has(folder + sep)) foldersWithFiles.set(folder + sep, name);
  loading.add(filename);
  let exports: unknown;
  try {
    exports = load.call(self, request, parent, isMain);
  } finally {
    loading.delete(filename);
  }
  const before = seen.get(filename);
  if (before !== undefined && before.original === exports) return before.patched;
  const hookName = request === name || filename === mainFileOf(folder, name) ? name : internalName(name, folder, filename);
  // An internal file nobody hooks is handed on as it is.
  if (hookName !== name && !entry.files.has(baseName(hookName))) return exports;
  // Recorded before the listeners run: one that requires the same file gets it as it is.
  const record: Seen = { original: exports, patched: exports };
  seen.set(filename, record);
  for (const listener of entry.listeners) record.patched = listener(record.patched, hookName, folder);
  return record.patched;
}

function internalName(name: string, folder: string, filename: string): string {
  return `${name}/${relative(folder, filename).split(sep).join('/')}`;
}

/**
 * The folder of package `name` that holds `filename`: the last
 * `node_modules/<name>` in its path, else (a package linked from elsewhere)
 * the nearest folder up whose package.json names it. For a relative request,
 * the hooked folder it was made from, if the file is still inside it and not
 * in a package nested there.
 */
function packageFolder(filename: string, name: string, relativeRequest: boolean): string | undefined {
  if (relativeRequest) {
    const entry = hookedFolderOf(filename);
    if (entry === undefined || entry[1] !== name || filename.includes(NODE_MODULES, entry[0].length)) return undefined;
    return entry[0].slice(0, -1);
  }
  const marker = `${NODE_MODULES}${name.split('/').join(sep)}${sep}`;
  const at = filename.lastIndexOf(marker);
  if (at >= 0) return filename.slice(0, at + marker.length - 1);
  for (let dir = dirname(filename); dirname(dir) !== dir; dir = dirname(dir)) {
    if (packageManifest(dir)?.name === name) return dir;
  }
  return undefined;
}

/** The file `require(name)` loads from inside `folder` (the package's main), resolved once per folder with hooked files. */
function mainFileOf(folder: string, name: string): string | undefined {
  if (mainFiles.has(folder)) return mainFiles.get(folder);
  let main: string | undefined;
  try {
    const from = { id: folder, filename: join(folder, 'package.json'), paths: internals._nodeModulePaths(folder) } as unknown as NodeModule;
    main = internals._resolveFilename(name, from, false);
  } catch {
    main = undefined;
  }
  mainFiles.set(folder, main);
  return main;
}
