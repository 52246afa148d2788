// Tool call ids read by position, for wire formats whose ids are optional and
// not the model's to keep: the one place that decides what a call and the
// result answering it are called when ids do not count (docs/behaviour.md
// §4.3 rule 30). Gemini often sends a function call with no id, and client
// libraries then add one of their own (`@ai-sdk/google`) or drop the one the
// model sent (`@langchain/google-genai`): the call is still the same call,
// identified by its name, its arguments and its place in its turn.

import type { Message, ToolCall } from '../model/messages';

/** A call of the latest assistant message not yet answered: the id it was read with, and its id by position. */
interface OpenCall {
  given: string;
  name: string;
  positional: string;
}

/**
 * `messages` with every tool call's id replaced by `{name}#{k}` (`k`
 * counting the earlier calls of that name in the same assistant message),
 * and every tool result's `toolCallId` by the id of the call it answers: the
 * call of the latest assistant message whose given id it names, else the
 * first call of its name there that no earlier result answered, else `null`
 * (it answers no call: tool pairing reports it). Messages with nothing to
 * rename are returned as they are; the others are copies. Never writes to
 * its input; an entry that is not a message object is left as it is.
 */
export function positionalCallIds(messages: readonly unknown[]): unknown[] {
  let open: OpenCall[] = [];
  return messages.map((entry) => {
    if (typeof entry !== 'object' || entry === null) return entry;
    const message = entry as Message;
    if (message.role === 'assistant') {
      open = [];
      const calls = message.toolCalls;
      if (!Array.isArray(calls) || calls.length === 0) return entry;
      const seen = new Map<string, number>();
      const renamed = calls.map((call: ToolCall): ToolCall => {
        if (typeof call !== 'object' || call === null) return call;
        const name = String(call.name);
        const k = seen.get(name) ?? 0;
        seen.set(name, k + 1);
        const positional = `${name}#${k}`;
        open.push({ given: typeof call.id === 'string' ? call.id : positional, name, positional });
        return call.id === positional ? call : { ...call, id: positional };
      });
      return renamed.every((call, i) => call === calls[i]) ? entry : { ...message, toolCalls: renamed };
    }
    if (message.role !== 'tool') return entry;
    const answered = answer(open, message);
    return answered === message.toolCallId ? entry : { ...message, toolCallId: answered };
  });
}

/** The positional id of the open call `result` answers (taken from `open`), or null. */
function answer(open: OpenCall[], result: Message): string | null {
  let at = typeof result.toolCallId === 'string' ? open.findIndex((call) => call.given === result.toolCallId) : -1;
  if (at < 0 && typeof result.name === 'string') at = open.findIndex((call) => call.name === result.name);
  if (at < 0) return null;
  const [call] = open.splice(at, 1);
  return call!.positional;
}
