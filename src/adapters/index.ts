export { fromOpenAIChat, toOpenAIChat, type OpenAIChatContentPart, type OpenAIChatMessage, type OpenAIChatToolCall } from './openai-chat';
export {
  fromOpenAIResponses,
  toOpenAIResponses,
  type OpenAIResponsesContentPart,
  type OpenAIResponsesInputPart,
  type OpenAIResponsesOutputPart,
  type OpenAIResponsesInputItem,
} from './openai-responses';
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
} from './anthropic';
export { fromAiSdkPrompt, toAiSdkPrompt, type AiSdkPromptMessage, type AiSdkToolResultOutput } from './ai-sdk';
export { fromAgentItems, toAgentItems, type AgentsItem } from './openai-agents';
