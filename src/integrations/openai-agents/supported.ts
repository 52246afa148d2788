// The Agents SDK versions this integration follows: what the instrumentation
// reads at start-up without loading the integration. (Its one setting,
// NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS, is read with the others in
// request-path/host.ts `settingsFrom`.)

import { SUPPORTED_VERSIONS } from '../supported-versions';

/** The Agents SDK's core package, which holds the runner the integration patches. */
export const AGENTS_CORE_MODULE = '@openai/agents-core';
/** The runner's model call lives in internal files: pinned to the minors tested (the files are the same in both; supported-versions.ts). */
export const AGENTS_CORE_SUPPORTED = SUPPORTED_VERSIONS.agents.range;
