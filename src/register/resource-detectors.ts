// The resource `register` reports. The SDK's process detector puts the whole
// command line in `process.command_args`, and an agent started as
// `node app.js "What is ...?"` would export its prompt with every span and
// metric. This package promises no prompt text by default, so the command
// arguments are dropped unless asked for.

import type { DetectedResource, ResourceDetector } from '@opentelemetry/resources';
import { envDetector, hostDetector, osDetector, processDetector, serviceInstanceIdDetector } from '@opentelemetry/resources';
import { booleanFromEnv } from '../environment';

/** Attributes that can carry the app's arguments, hence prompt text. */
const ARGUMENT_ATTRIBUTES = ['process.command_args', 'process.command_line'];

/** Set to `true` to export `process.command_args` again. */
export const COMMAND_ARGS_ENV = 'NOUS_SESSION_INVARIANT_RESOURCE_COMMAND_ARGS';

const withoutArguments: ResourceDetector = {
  detect(config): DetectedResource {
    const detected = processDetector.detect(config);
    const attributes = { ...detected.attributes };
    for (const name of ARGUMENT_ATTRIBUTES) delete attributes[name];
    return { ...detected, attributes };
  },
};

/** The SDK's detectors by their OTEL_NODE_RESOURCE_DETECTORS names. */
function detectorsByName(process: ResourceDetector): ReadonlyMap<string, ResourceDetector[]> {
  return new Map([
    ['env', [envDetector]],
    ['host', [hostDetector]],
    ['os', [osDetector]],
    ['process', [process]],
    ['serviceinstance', [serviceInstanceIdDetector]],
  ]);
}

/**
 * The detectors the SDK would pick (OTEL_NODE_RESOURCE_DETECTORS: `all` by
 * default, `none`, or a list), with the process detector's command arguments
 * removed unless NOUS_SESSION_INVARIANT_RESOURCE_COMMAND_ARGS is `true`.
 */
export function resourceDetectorsFor(env: NodeJS.ProcessEnv): ResourceDetector[] {
  const byName = detectorsByName(
    booleanFromEnv(COMMAND_ARGS_ENV, false, 'exporting the command-line arguments', env) ? processDetector : withoutArguments,
  );
  const names = (env.OTEL_NODE_RESOURCE_DETECTORS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return [...byName.values()].flat();
  if (names.includes('none')) return [];
  // Unknown names are skipped; the SDK warns about them when it reads the variable itself.
  return names.flatMap((name) => byName.get(name) ?? []);
}
