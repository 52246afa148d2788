// The `openai` package: Chat Completions and Responses, through the client hook.

import type { Integration } from '../../instrumentation/integration';
import { clientDefinition } from '../sdk-client/client-hook';
import { openAIModelRequest } from './model-request';

export const OPENAI_MODULE = 'openai';
/** The majors whose client has `prepareOptions` with the semantics the hook relies on, tested in CI. */
export const OPENAI_SUPPORTED = '>=6.0.0 <8';

export const openaiIntegration: Integration = {
  name: OPENAI_MODULE,
  esmInclude: [OPENAI_MODULE],
  definitions: (patcher) => [
    clientDefinition(
      {
        module: OPENAI_MODULE,
        range: OPENAI_SUPPORTED,
        clientOf: (exports) => exports.OpenAI ?? exports.default,
        modelRequest: openAIModelRequest,
      },
      patcher,
    ),
  ],
};
