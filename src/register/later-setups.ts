// When `register` starts its own SDK, it registers the process's one global
// tracer provider, and a telemetry tool that sets up OpenTelemetry after it is
// refused: that tool's exporter then gets no spans. Nothing can hand the
// global over later, so `register` says at start-up, by name, which tool it
// found and what to change (load the tool first; `register` then attaches).

import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Tools that register an OpenTelemetry SDK of their own, and how their set-up is started. */
export const SDK_TOOLS: ReadonlyArray<{ name: string; setUp: string }> = [
  { name: '@sentry/node', setUp: 'Sentry.init()' },
  { name: '@traceloop/node-server-sdk', setUp: 'traceloop.initialize()' },
  { name: '@opentelemetry/auto-instrumentations-node', setUp: '@opentelemetry/auto-instrumentations-node/register' },
];

const REGISTER = /(^|[\s=])nous-session-invariant\/register(\.m?js)?(\s|$)/;

/** Preload flags (`--require`/`--import`, from argv and NODE_OPTIONS), in order, as one string each. */
function preloads(execArgv: readonly string[], nodeOptions: string): string[] {
  const words = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (/^(--require|-r|--import)=/.test(word)) out.push(word.slice(word.indexOf('=') + 1));
    else if (/^(--require|-r|--import)$/.test(word) && words[i + 1] !== undefined) out.push(words[++i]!);
  }
  return out;
}

/**
 * The tools that will set up OpenTelemetry after `register`, so lose their
 * telemetry: one preloaded after it, or one the app has installed (resolvable
 * from the working directory) and so may initialize in its code.
 */
export function laterSetups(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
  cwd: string = process.cwd(),
): string[] {
  const loads = preloads(execArgv, nodeOptions);
  const ours = loads.findIndex((load) => REGISTER.test(` ${load} `));
  const resolveFromApp = createRequire(join(cwd, 'package.json')).resolve;
  return SDK_TOOLS.filter(({ name }) => {
    const preloaded = loads.findIndex((load) => load.startsWith(`${name}/`) || load === name);
    // Preloaded: after register only if register was preloaded too, and earlier (else the app required it later).
    if (preloaded >= 0) return ours >= 0 && preloaded > ours;
    try {
      resolveFromApp(name);
      return true;
    } catch {
      return false;
    }
  }).map(({ name, setUp }) => `${name} (${setUp})`);
}

/** The start-up warning for `tools`, or undefined when there are none. */
export function laterSetupWarning(tools: readonly string[]): string | undefined {
  if (tools.length === 0) return undefined;
  return (
    `register started its own OpenTelemetry SDK, and ${tools.join(', ')} is installed or loaded after it: ` +
    'if it sets up OpenTelemetry later in this process, its exporter gets none of the spans, because a process has one ' +
    'global tracer provider and the first registered keeps it. Set that tool up first (load its set-up file with ' +
    '--require/--import before nous-session-invariant/register): register then attaches to its SDK and adds what it lacks.'
  );
}
