// The `@anthropic-ai/sdk` package: Messages `create` and `stream`, through the client hook.

import type { Integration } from '../../instrumentation/integration';
import { clientDefinition } from '../sdk-client/client-hook';
import { anthropicModelRequest } from './model-request';

/** The npm package the Anthropic integration hooks; also its name in warnings and its ESM loader hook entry. */
export const ANTHROPIC_MODULE = '@anthropic-ai/sdk';
/** The versions whose client has `prepareOptions` with the semantics the hook relies on, tested in CI. */
export const ANTHROPIC_SUPPORTED = '>=1.0.0 <2';

/**
 * The `@anthropic-ai/sdk` client, checked at its `prepareOptions` seam once per
 * attempt (retries are not checked again): Messages `create` and `stream`, beta
 * included (docs/behaviour.md §8.5).
 */
export const anthropicIntegration: Integration = {
  name: ANTHROPIC_MODULE,
  esmInclude: [ANTHROPIC_MODULE],
  definitions: (patcher) => [
    clientDefinition(
      {
        module: ANTHROPIC_MODULE,
        range: ANTHROPIC_SUPPORTED,
        clientOf: (exports) => exports.Anthropic ?? exports.default,
        modelRequest: anthropicModelRequest,
      },
      patcher,
    ),
  ],
};
