// The Agents SDK versions this integration follows.

/** The Agents SDK's core package, which holds the runner the integration patches. */
export const AGENTS_CORE_MODULE = '@openai/agents-core';
/** The runner's model call lives in internal files: pinned to the minors tested (the files are the same in both). */
export const AGENTS_CORE_SUPPORTED = '>=0.19.0 <0.21.0';
