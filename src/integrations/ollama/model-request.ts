// Which Ollama requests are model requests (`POST /api/chat`), and their
// messages in canonical form. The `ollama` client calls `globalThis.fetch`,
// so they reach the fetch seam with no hook of their own.

import type { ModelRequest } from '../../request-path/model-request';
import { positionalCallIds } from '../../invariant/positional-call-ids';
import { modelOf } from '../sdk-client/request-options';
import { fromOllama } from './adapter';

/** `gen_ai.provider.name` of Ollama requests (the GenAI conventions give no value; Ollama's own name). */
export const OLLAMA_PROVIDER = 'ollama';

/** Whether `path` is Ollama's chat, `…/api/chat` (the one place that says so; a proxy may add a prefix). */
export function isOllamaChatPath(path: string): boolean {
  return path.endsWith('/api/chat');
}

/**
 * The model request a POST of `body` to `path` is. Tool calls carry no id of
 * the model's (a client may add one, or none), and results answer by tool
 * name: ids are read by position (docs/behaviour.md §4.3 rule 30).
 */
export function ollamaBodyRequest(path: string, body: Record<string, unknown>): ModelRequest | undefined {
  if (!isOllamaChatPath(path)) return undefined;
  const messages = Array.isArray(body.messages) ? positionalCallIds(fromOllama(body.messages)) : body.messages;
  return { provider: OLLAMA_PROVIDER, model: modelOf(body), messages, replyFormat: 'ollama.chat', callIds: 'positional' };
}
