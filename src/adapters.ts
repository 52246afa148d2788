// nous-session-invariant/adapters: provider request shapes <-> canonical
// messages. `to...` builds a request from the log's fold, so the invariant
// holds by construction; `from...` reads a request or a reply back.

export {
  fromOpenAIChat,
  toOpenAIChat,
  type OpenAIChatContentPart,
  type OpenAIChatMessage,
  type OpenAIChatToolCall,
} from './integrations/openai/chat-adapter';
export {
  fromOpenAIResponses,
  toOpenAIResponses,
  type OpenAIResponsesContentPart,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesInputPart,
  type OpenAIResponsesOutputPart,
} from './integrations/openai/responses-adapter';
export {
  fromAnthropic,
  toAnthropic,
  type AnthropicBlock,
  type AnthropicImageBlock,
  type AnthropicImageMediaType,
  type AnthropicMessageParam,
  type AnthropicRequest,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
} from './integrations/anthropic/adapter';
export {
  fromGemini,
  toGemini,
  type GeminiContent,
  type GeminiFunctionCallPart,
  type GeminiFunctionResponsePart,
  type GeminiInlineDataPart,
  type GeminiPart,
  type GeminiRequest,
  type GeminiTextPart,
} from './integrations/gemini/adapter';
export { fromAiSdkPrompt, toAiSdkPrompt, type AiSdkPromptMessage, type AiSdkToolResultOutput } from './integrations/ai-sdk/adapter';
export { fromAgentItems, toAgentItems, type AgentsItem } from './integrations/openai-agents/adapter';
