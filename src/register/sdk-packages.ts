// The OpenTelemetry SDK packages `register` loads to start an SDK when the
// process has none. They are not dependencies of this package (users of the
// other entries never install them; docs/register.md "Dependencies"), so
// when one is missing or of another version `register` says what to install
// instead of failing on a require. The check runs on what start-sdk.ts
// loaded (`loadedSdkProblem`): Node has resolved each package for it, so
// the check only reads their versions, where looking each up beforehand cost
// six more resolutions at every start (docs/performance.md "Cold start").
// When the load fails, `sdkProblem` looks each up, to say which.

import { sep } from 'node:path';
import { packageManifest } from '../instrumentation/package-versions';
import { satisfies } from '../integrations/version-range';

/** What `start-sdk.ts` loads, with the versions it is written and tested for. */
export const SDK_PACKAGES: Readonly<Record<string, string>> = {
  '@opentelemetry/sdk-node': '^0.301.0',
  '@opentelemetry/sdk-metrics': '^3.1.0',
  '@opentelemetry/sdk-trace': '^3.1.0',
  '@opentelemetry/sdk-logs': '^3.1.0',
  '@opentelemetry/resources': '^3.1.0',
  '@opentelemetry/core': '^3.1.0',
};

/** The one command that installs them all: sdk-node depends on the others. */
export const SDK_INSTALL_COMMAND = `npm install @opentelemetry/sdk-node@${SDK_PACKAGES['@opentelemetry/sdk-node']}`;

type Resolve = (name: string) => string;

/** The version of the package `name` that `resolve` finds, or undefined when it finds none. */
export function installedVersion(name: string, resolve: Resolve): string | undefined {
  let entry: string;
  try {
    entry = resolve(name);
  } catch {
    return undefined;
  }
  return versionAt(name, entry);
}

/** The version of package `name` that holds the file `filename`, or undefined if it is in no `node_modules/<name>`. */
function versionAt(name: string, filename: string): string | undefined {
  const marker = `${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`;
  const at = filename.lastIndexOf(marker);
  if (at < 0) return undefined;
  const version = packageManifest(filename.slice(0, at + marker.length - 1))?.version;
  return typeof version === 'string' ? version : undefined;
}

/**
 * Why the SDK cannot be started from what is installed (each package missing
 * or out of range), or undefined when it can.
 */
export function sdkProblem(resolve: Resolve = require.resolve): string | undefined {
  return problemOf((name) => installedVersion(name, resolve));
}

/**
 * `sdkProblem` for the SDK packages `starter` (start-sdk.ts, loaded) and the
 * modules beside it required: the versions of the files Node loaded for
 * them, which are those `require.resolve` finds from this folder. A package
 * none of them loaded is looked up.
 */
export function loadedSdkProblem(starter: NodeModule, resolve: Resolve = require.resolve): string | undefined {
  const loaded = new Map<string, string>();
  const folder = starter.filename.slice(0, starter.filename.lastIndexOf(sep) + 1);
  const visit = (module: NodeModule, depth: number): void => {
    for (const child of module.children) {
      const name = sdkPackageOf(child.filename);
      if (name !== undefined && !loaded.has(name)) loaded.set(name, child.filename);
      else if (depth === 0 && child.filename.startsWith(folder) && !child.filename.includes(NODE_MODULES, folder.length)) visit(child, 1);
    }
  };
  visit(starter, 0);
  return problemOf((name) => {
    const filename = loaded.get(name);
    return filename === undefined ? installedVersion(name, resolve) : versionAt(name, filename);
  });
}

const NODE_MODULES = `${sep}node_modules${sep}`;

/** The SDK package that `filename` is a file of (by its last `node_modules/<name>`), if any. */
function sdkPackageOf(filename: string): string | undefined {
  const at = filename.lastIndexOf(NODE_MODULES);
  if (at < 0) return undefined;
  const parts = filename.slice(at + NODE_MODULES.length).split(sep);
  const name = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  return name !== undefined && Object.hasOwn(SDK_PACKAGES, name) ? name : undefined;
}

function problemOf(versionOf: (name: string) => string | undefined): string | undefined {
  const problems: string[] = [];
  for (const [name, range] of Object.entries(SDK_PACKAGES)) {
    const version = versionOf(name);
    if (version === undefined) problems.push(`${name} ${range} is not installed`);
    else if (!satisfies(version, range)) problems.push(`${name} is ${version}, not ${range}`);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}
