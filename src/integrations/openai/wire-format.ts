// OpenAI Chat Completions and Responses as the transport seams read them
// (Azure's deployment paths included: only the path's end is read).

import { chatAssembler, chatReplyFromBody, responsesAssembler, responsesReplyFromBody } from './replies';
import type { WireFormat } from '../wire-format';
import { isChatCompletionsPath, isResponsesPath, openAIBodyRequest } from './model-request';

/** `…/chat/completions`. */
export const openaiChatWireFormat: WireFormat = {
  name: 'openai.chat',
  mayBeModelURL: (url) => url.includes('completions'),
  isModelPath: isChatCompletionsPath,
  request: (path, body) => openAIBodyRequest(path, body),
  replyFromBody: chatReplyFromBody,
  assembler: chatAssembler,
};

/** `…/responses`. */
export const openaiResponsesWireFormat: WireFormat = {
  name: 'openai.responses',
  mayBeModelURL: (url) => url.includes('responses'),
  isModelPath: isResponsesPath,
  request: (path, body) => openAIBodyRequest(path, body),
  replyFromBody: responsesReplyFromBody,
  assembler: responsesAssembler,
};
