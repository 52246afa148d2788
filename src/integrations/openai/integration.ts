// The `openai` package: Chat Completions and Responses, through the client hook.

import type { Integration } from '../integration';
import { clientDefinition } from '../sdk-client/client-hook';
import { openAIModelRequest } from './model-request';

/** The npm package the OpenAI integration hooks; also its name in warnings and its ESM loader hook entry. */
export const OPENAI_MODULE = 'openai';
/** The majors whose client has `prepareOptions` with the semantics the hook relies on, tested in CI. */
export const OPENAI_SUPPORTED = '>=6.0.0 <8';

/**
 * The `openai` client, checked at its `prepareOptions` seam once per attempt
 * (retries are not checked again): Chat Completions and Responses, Azure
 * deployment paths included. The Agents SDK's model calls go through it too
 * (docs/behaviour.md §8.5).
 */
export const openaiIntegration: Integration = {
  name: OPENAI_MODULE,
  esmInclude: [OPENAI_MODULE],
  definitions: (patcher) => [
    clientDefinition(
      {
        module: OPENAI_MODULE,
        range: OPENAI_SUPPORTED,
        byteSeam: 'prepareRequest',
        clientOf: (exports) => exports.OpenAI ?? exports.default,
        modelRequest: openAIModelRequest,
      },
      patcher,
    ),
  ],
};
