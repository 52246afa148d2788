// nous-session-invariant/openai-agents: an OpenAI Agents SDK Session backed by a SessionLog.

export { AgentsLogSession } from './integrations/openai-agents/agents-session';
