// The fetch seam, as long as the instrumentation is enabled.

import type { Integration } from '../../instrumentation/integration';
import { observeFetch } from './fetch-seam';

export const fetchIntegration: Integration = {
  name: 'fetch',
  esmInclude: [],
  definitions: () => [],
  start: observeFetch,
};
