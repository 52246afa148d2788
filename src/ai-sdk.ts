// nous-session-invariant/ai-sdk: the Vercel AI SDK middleware and step recorder.

export {
  sessionInvariantMiddleware,
  type SessionInvariantMiddleware,
  type SessionInvariantMiddlewareOptions,
} from './integrations/ai-sdk/middleware';
export { recordAiSdkSteps } from './integrations/ai-sdk/step-recorder';
