// The fetch seam, as long as the instrumentation is enabled. The wrap of
// `globalThis.fetch` is in place from `enable()`; the seam itself (the request
// path behind it) loads at the first call of fetch, not at start-up
// (docs/performance.md "Cold start").

import type { Integration } from '../integration';
import { lazyPart } from '../../lazy-part';
import { registerFetchObserver } from './fetch-registry';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at the first fetch call, not at start-up
const fetchSeam = lazyPart('fetch/fetch-seam', () => require('./fetch-seam') as typeof import('./fetch-seam'));

/**
 * The fetch seam while the instrumentation is enabled: `globalThis.fetch` POSTs
 * to the model paths that no hooked SDK client sent, so each request is counted
 * once (docs/behaviour.md §5.3, §8.5).
 */
export const fetchIntegration: Integration = {
  name: 'fetch',
  esmInclude: [],
  definitions: () => [],
  start: () => registerFetchObserver((fetch, thisArg, args) => fetchSeam().observeCall(fetch, thisArg, args)),
};
