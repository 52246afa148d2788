// Anthropic Messages as the transport seams read it.

import { anthropicAssembler, anthropicReplyFromBody } from './replies';
import type { WireFormat } from '../wire-format';
import { anthropicBodyRequest, isAnthropicMessagesPath } from './model-request';

/** `…/v1/messages` (beta included: the beta flag is a header). */
export const anthropicWireFormat: WireFormat = {
  name: 'anthropic.messages',
  mayBeModelURL: (url) => url.includes('messages'),
  isModelPath: isAnthropicMessagesPath,
  request: anthropicBodyRequest,
  replyFromBody: anthropicReplyFromBody,
  assembler: anthropicAssembler,
};
