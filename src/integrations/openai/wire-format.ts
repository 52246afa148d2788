// OpenAI Chat Completions and Responses as the transport seams read them
// (Azure's deployment paths included: only the path's end is read).

import { chatAssembler, chatReplyFromBody, responsesAssembler, responsesReplyFromBody } from './replies';
import type { WireFormat } from '../wire-format';
import { openAIBodyRequest } from './model-request';

/** `…/chat/completions`. */
export const openaiChatWireFormat: WireFormat = {
  name: 'openai.chat',
  clientModule: 'openai', // OPENAI_MODULE, written out: integration.ts loads the client hook, which reads replies through this list
  mayBeModelURL: (url) => url.includes('completions'),
  isModelPath: (path) => path.endsWith('/chat/completions'),
  request: (path, body) => openAIBodyRequest(path, body),
  replyFromBody: chatReplyFromBody,
  assembler: chatAssembler,
};

/** `…/responses`. */
export const openaiResponsesWireFormat: WireFormat = {
  name: 'openai.responses',
  clientModule: 'openai', // OPENAI_MODULE, written out: integration.ts loads the client hook, which reads replies through this list
  mayBeModelURL: (url) => url.includes('responses'),
  isModelPath: (path) => path.endsWith('/responses'),
  request: (path, body) => openAIBodyRequest(path, body),
  replyFromBody: responsesReplyFromBody,
  assembler: responsesAssembler,
};
