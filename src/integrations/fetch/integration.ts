// The fetch seam, as long as the instrumentation is enabled.

import type { Integration } from '../integration';
import { observeFetch } from './fetch-seam';

/**
 * The fetch seam while the instrumentation is enabled: `globalThis.fetch` POSTs
 * to the model paths that no hooked SDK client sent, so each request is counted
 * once (docs/behaviour.md §5.3, §8.5).
 */
export const fetchIntegration: Integration = {
  name: 'fetch',
  esmInclude: [],
  definitions: () => [],
  start: observeFetch,
};
