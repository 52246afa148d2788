// Every integration the instrumentation enables: the providers' SDK client
// hooks and their own hooks (from the provider registry, providers.ts), then the frameworks and
// the fetch seam. A provider is added in providers.ts; a framework here.

import type { Integration } from './integration';
import { aiSdkIntegration } from './ai-sdk/integration';
import { fetchIntegration } from './fetch/integration';
import { openaiAgentsIntegration } from './openai-agents/integration';
import { CLIENT_SEAMS, PROVIDER_HOOKS } from './providers';
import { clientIntegration } from './sdk-client/client-hook';

/**
 * Every integration the instrumentation enables: each provider's client hook,
 * the frameworks, and the fetch seam. `init()` collects their module
 * definitions, `enable()` starts their process-wide seams, and the ESM
 * loader hook is limited to what they patch (`esmInclude`).
 */
export const INTEGRATIONS: readonly Integration[] = [
  ...CLIENT_SEAMS.map(clientIntegration),
  ...PROVIDER_HOOKS,
  aiSdkIntegration,
  openaiAgentsIntegration,
  fetchIntegration,
];

/** What the ESM loader hook is limited to: the modules and internal files the integrations patch. */
export function esmInclude(): Array<string | RegExp> {
  return INTEGRATIONS.flatMap((integration) => integration.esmInclude);
}
