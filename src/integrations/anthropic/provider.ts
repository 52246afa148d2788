// The Anthropic provider: Messages `create` and `stream`, checked at the
// `@anthropic-ai/sdk` client's hook, and at the fetch seam for any other client.

import type { Provider } from '../provider';
import { SUPPORTED_VERSIONS } from '../supported-versions';
import { anthropicReading, anthropicWireFormat } from './wire-format';

/** The npm package the Anthropic client hook patches; also its name in warnings and its ESM loader hook entry. */
export const ANTHROPIC_MODULE = '@anthropic-ai/sdk';
/**
 * The versions whose client has `prepareOptions` with the semantics the hook relies on, tested in CI.
 * 0.12.4 is the first with that seam (0.12.3 and older have none: their requests cannot be checked
 * before they are sent, and are reported once as outside this range). 0.x includes the 0.122 line
 * `@langchain/anthropic` bundles. Below 0.50 the client calls node-fetch and has Messages under
 * `client.beta` until 0.14; the seam, the request options and the retry path are the same.
 * Tested: 0.12.4 and 0.122 (test/versions/), 1.x (the dev dependency); the range and the projects are
 * in supported-versions.ts.
 */
export const ANTHROPIC_SUPPORTED = SUPPORTED_VERSIONS.anthropic.range;

/**
 * The `@anthropic-ai/sdk` client, checked at its `prepareOptions` seam once per
 * attempt (retries are not checked again): Messages `create` and `stream`, beta
 * included (docs/behaviour.md §8.5).
 */
export const anthropicProvider: Provider = {
  name: 'anthropic',
  client: {
    module: ANTHROPIC_MODULE,
    manualKey: 'anthropic',
    range: ANTHROPIC_SUPPORTED,
    byteSeam: 'backendMiddleware',
    clientOf: (exports) => exports.Anthropic ?? exports.default,
    modelRequest: (options) => anthropicReading().anthropicModelRequest(options),
    serialised: (options, text) => anthropicReading().anthropicSerialised(options, text),
  },
  wireFormats: [anthropicWireFormat],
};
