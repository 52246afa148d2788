// Cohere v2 chat as the transport seams read it.

import type { WireFormat } from '../wire-format';
import { cohereBodyRequest, isCohereChatPath } from './model-request';
import { cohereAssembler, cohereReplyFromBody } from './replies';

/** `POST /v2/chat`, streamed (server-sent events) or not. */
export const cohereChatWireFormat: WireFormat = {
  name: 'cohere.chat',
  mayBeModelURL: (url) => url.includes('/v2/chat'),
  isModelPath: isCohereChatPath,
  request: cohereBodyRequest,
  replyFromBody: cohereReplyFromBody,
  assembler: cohereAssembler,
};
