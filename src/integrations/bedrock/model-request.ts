// Which Bedrock Runtime commands are model requests, and their messages in canonical form.

import type { ModelRequest } from '../../request-path/model-request';
import { isObject } from '../../reading/canonical';
import { fromConverse } from './adapter';

/** `gen_ai.provider.name` of Bedrock requests, as the OpenTelemetry GenAI conventions name the provider. */
export const BEDROCK_PROVIDER = 'aws.bedrock';

/**
 * The model request a Converse command's input is: `modelId`, and `system`
 * with `messages`. A prompt managed by Bedrock (`promptVariables`, a prompt
 * ARN as `modelId`) keeps its text on the provider's side: stateful, not
 * compared.
 */
export function converseModelRequest(input: unknown): ModelRequest | undefined {
  if (!isObject(input)) return undefined;
  const model = typeof input.modelId === 'string' ? input.modelId : undefined;
  if (input.promptVariables !== undefined)
    return { provider: BEDROCK_PROVIDER, model, messages: [], stateful: 'a prompt managed by Bedrock (promptVariables)' };
  const messages = Array.isArray(input.messages) ? fromConverse({ system: input.system, messages: input.messages }) : input.messages;
  return { provider: BEDROCK_PROVIDER, model, messages };
}
