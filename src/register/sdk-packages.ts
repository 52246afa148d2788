// The OpenTelemetry SDK packages `register` loads to start an SDK when the
// process has none. They are not dependencies of this package (users of the
// other entries never install them; docs/register.md "Dependencies"), so they are looked
// up when needed, and when one is missing or of another version `register`
// says what to install instead of failing on a require.

import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
// The one function, not the whole package: semver's index loads 47 modules at start-up, this 19.
import satisfies from 'semver/functions/satisfies';

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
  const marker = `${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`;
  const at = entry.lastIndexOf(marker);
  if (at < 0) return undefined;
  const manifest = JSON.parse(readFileSync(join(entry.slice(0, at + marker.length), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : undefined;
}

/**
 * Why the SDK cannot be started from what is installed (each package missing
 * or out of range), or undefined when it can.
 */
export function sdkProblem(resolve: Resolve = require.resolve): string | undefined {
  const problems: string[] = [];
  for (const [name, range] of Object.entries(SDK_PACKAGES)) {
    const version = installedVersion(name, resolve);
    if (version === undefined) problems.push(`${name} ${range} is not installed`);
    else if (!satisfies(version, range)) problems.push(`${name} is ${version}, not ${range}`);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}
