// The Agents SDK versions this integration follows, and its one setting:
// what the instrumentation reads at start-up without loading the integration.

import { booleanFromEnv } from '../../environment';
import { SUPPORTED_VERSIONS } from '../supported-versions';

/** The Agents SDK's core package, which holds the runner the integration patches. */
export const AGENTS_CORE_MODULE = '@openai/agents-core';
/** The runner's model call lives in internal files: pinned to the minors tested (the files are the same in both; supported-versions.ts). */
export const AGENTS_CORE_SUPPORTED = SUPPORTED_VERSIONS.agents.range;
/** Set to `true` (or `1`, `on`): an input filter's output is taken as a view of the log, unchecked. */
export const TRUST_INPUT_FILTERS_ENV_VAR = 'NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS';

/** Whether the environment asks to trust the Agents SDK's input filters (off by default): read here only. */
export function trustInputFiltersFromEnv(): boolean {
  return booleanFromEnv(TRUST_INPUT_FILTERS_ENV_VAR, false, 'trusting input filters');
}
