// nous-session-invariant/langchain: a SessionLog kept in step with LangChain.js agents.

export { sessionLogMiddleware, type SessionLogMiddleware, type SessionLogMiddlewareOptions } from './integrations/langchain/middleware';
export { sessionLogHooks, type GraphHook, type SessionLogHooks } from './integrations/langchain/graph-hooks';
export { appendLangChainMessages } from './integrations/langchain/recorder';
export {
  fromLangChainMessages,
  toLangChainMessages,
  LANGCHAIN_ID_KEY,
  type LangChainMessageLike,
  type LangChainToolCall,
} from './integrations/langchain/adapter';
