// An ESM app started with `--require` only: the require hook never sees the
// modules it imports, so nothing would be checked, silently. Say so once.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { logWarning } from '../warnings';

/** Set by register.mts before it loads the registration: the ESM loader hook is in place. */
export const ESM_HOOK_FLAG = Symbol.for('nous-session-invariant.esm-hook');

/** Whether `entry` (the app's main script) is loaded as an ES module, by Node's rules: the extension, else the nearest package.json's `type`. */
export function isEsmEntry(entry: string | undefined): boolean {
  if (!entry) return false;
  const path = resolve(entry);
  const extension = extname(path);
  if (extension === '.mjs' || extension === '.mts') return true;
  if (extension !== '.js' && extension !== '.ts' && extension !== '') return false;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Whether the process was started with `--import` of this package's register
 * entry, which runs after every `--require` (so its flag is not set yet).
 */
function importsRegister(): boolean {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const ownEntry = resolve(__dirname, '..', 'register.mjs');
  return args.some((arg, i) => {
    const spec = arg.startsWith('--import=') ? arg.slice('--import='.length) : arg === '--import' ? args[i + 1] : undefined;
    if (!spec) return false;
    return spec.includes('nous-session-invariant/register') || (spec.startsWith('.') && resolve(spec) === ownEntry);
  });
}

/** Warns, once, when the app's entry is an ES module and the ESM hook is neither registered nor about to be. */
export function warnIfEsmAppWithoutHook(entry = process.argv[1]): void {
  setImmediate(() => {
    try {
      if ((globalThis as { [ESM_HOOK_FLAG]?: boolean })[ESM_HOOK_FLAG] || importsRegister() || !isEsmEntry(entry)) return;
      logWarning(
        `${entry} is an ES module, and modules it imports are not patched by --require: ` +
          'start it with --import nous-session-invariant/register (NODE_OPTIONS="--import nous-session-invariant/register")',
      );
    } catch {
      // A hint only: never in the app's way.
    }
  }).unref();
}
