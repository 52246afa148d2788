// Every integration the instrumentation enables: the one list to extend.

import type { Integration } from './integration';
import { aiSdkIntegration } from './ai-sdk/integration';
import { anthropicIntegration } from './anthropic/integration';
import { fetchIntegration } from './fetch/integration';
import { openaiIntegration } from './openai/integration';
import { openaiAgentsIntegration } from './openai-agents/integration';

/**
 * Every integration the instrumentation enables: the one list to extend when
 * adding a provider or framework. `init()` collects their module definitions,
 * `enable()` starts their process-wide seams, and the ESM loader hook is
 * limited to what they patch (`esmInclude`).
 */
export const INTEGRATIONS: readonly Integration[] = [
  openaiIntegration,
  anthropicIntegration,
  aiSdkIntegration,
  openaiAgentsIntegration,
  fetchIntegration,
];

/** What the ESM loader hook is limited to: the modules and internal files the integrations patch. */
export function esmInclude(): Array<string | RegExp> {
  return INTEGRATIONS.flatMap((integration) => integration.esmInclude);
}
