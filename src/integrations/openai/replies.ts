// OpenAI replies: a Chat Completions body or chunks (every choice), a
// Responses body or its events (the output items, with the items each
// message was stored as).

import { isObject } from '../../reading/canonical';
import type { Message } from '../../model/messages';
import { withId, type Reply, type ReplyAssembler } from '../http/reply-assemblers';
import { fromOpenAIChat } from './chat-adapter';
import { fromOpenAIResponsesOutput } from './responses-adapter';

/** A Chat Completions reply in a JSON response body. */
export function chatReplyFromBody(body: unknown): Reply | undefined {
  return isObject(body) && Array.isArray(body.choices) ? chatReply(body.choices as unknown[]) : undefined;
}

/** A Responses reply in a JSON response body. */
export function responsesReplyFromBody(body: unknown): Reply | undefined {
  return isObject(body) && Array.isArray(body.output) ? withId(responsesReply(body.output), body.id) : undefined;
}

/** Most choices read from one Chat Completions reply (`n` is at most 128). */
const MAX_CHOICES = 128;

/**
 * A Chat Completions reply: the choice with index 0 (else the first) is the
 * reply, the others its siblings. Every choice is a reply the model sent, and
 * an app may continue with any one of them.
 */
function chatReply(choices: readonly unknown[]): Reply | undefined {
  if (choices.length === 1) {
    // The usual reply, one choice: it is the reply whatever its index.
    const choice = choices[0];
    return isObject(choice) && isObject(choice.message) ? { messages: fromOpenAIChat([choice.message]) } : undefined;
  }
  const byIndex = new Map<number, Message[]>();
  for (let i = 0; i < choices.length && byIndex.size < MAX_CHOICES; i++) {
    const choice = choices[i];
    if (!isObject(choice) || !isObject(choice.message)) continue;
    const index = typeof choice.index === 'number' ? choice.index : i;
    if (!byIndex.has(index)) byIndex.set(index, fromOpenAIChat([choice.message]));
  }
  return replyOfChoices(byIndex);
}

/** The reply of choices by index: index 0 (else the lowest) first, the rest in index order as siblings. */
function replyOfChoices(byIndex: Map<number, Message[]>): Reply | undefined {
  if (byIndex.size === 0) return undefined;
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  const main = byIndex.has(0) ? 0 : indices[0]!;
  const siblings = indices.filter((i) => i !== main).map((i) => byIndex.get(i)!);
  return siblings.length > 0 ? { messages: byIndex.get(main)!, siblings } : { messages: byIndex.get(main)! };
}

/**
 * A Responses output as a reply: its messages, and for each the items it is
 * made of. Items join into messages as the adapter joins them: an assistant
 * message item starts a message, and the function calls after it are its
 * calls (with no message item before them, they make a message of their own).
 */
function responsesReply(output: unknown[]): Reply {
  const messages = fromOpenAIResponsesOutput(output);
  const groups: Array<Array<{ id: string; callId?: string }>> = [];
  let open = false;
  for (const item of output) {
    if (!isObject(item)) continue;
    const id = typeof item.id === 'string' ? item.id : '';
    if (item.type === 'message') {
      groups.push([{ id }]);
      open = item.role === 'assistant';
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const piece = { id, callId: item.call_id as string };
      if (open) groups[groups.length - 1]!.push(piece);
      else groups.push([piece]);
      open = true;
    }
  }
  // Only when each group is one of the messages, in order, can a reference be read as part of one.
  if (groups.length !== messages.length) return { messages };
  const items = messages.map((message, i) => ({ message, pieces: groups[i]! }));
  return { messages, items: items.filter(({ pieces }) => pieces.every((piece) => piece.id !== '')) };
}

/** One choice of a streamed Chat Completions reply, as its deltas arrive. */
interface ChoiceState {
  text: string;
  sawText: boolean;
  calls: Array<{ id?: string; name: string; arguments: string }>;
  done: boolean;
}

/**
 * Chat Completions chunks: each choice's deltas (by `index`; `n` > 1 streams
 * several), text concatenated, tool calls by index. The reply is choice 0's,
 * once it finished; the other finished choices are its siblings.
 */
export function chatAssembler(): ReplyAssembler {
  const choices = new Map<number, ChoiceState>();
  return {
    event(data) {
      if (!isObject(data) || !Array.isArray(data.choices)) return;
      for (const choice of data.choices as unknown[]) {
        if (!isObject(choice) || !isObject(choice.delta)) continue;
        const index = typeof choice.index === 'number' ? choice.index : 0;
        let state = choices.get(index);
        if (state === undefined) {
          if (choices.size >= MAX_CHOICES) continue;
          choices.set(index, (state = { text: '', sawText: false, calls: [], done: false }));
        }
        const delta = choice.delta;
        if (typeof delta.content === 'string') {
          state.text += delta.content;
          state.sawText = true;
        }
        for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
          if (!isObject(call)) continue;
          const at = typeof call.index === 'number' ? call.index : state.calls.length;
          const slot = (state.calls[at] ??= { name: '', arguments: '' });
          if (typeof call.id === 'string') slot.id = call.id;
          const fn = isObject(call.function) ? call.function : {};
          if (typeof fn.name === 'string') slot.name += fn.name;
          if (typeof fn.arguments === 'string') slot.arguments += fn.arguments;
        }
        if (choice.finish_reason != null) state.done = true;
      }
    },
    reply() {
      if (choices.get(0)?.done !== true) return undefined;
      const finished = new Map<number, Message[]>();
      for (const [index, state] of choices) if (state.done) finished.set(index, fromOpenAIChat([choiceMessage(state)]));
      return replyOfChoices(finished);
    },
  };
}

/** A streamed choice as the Chat Completions message it amounts to. */
function choiceMessage(state: ChoiceState): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: state.sawText ? state.text : null };
  const toolCalls = state.calls
    .filter((c) => c !== undefined)
    .map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

/** Responses events: the final response's output items. */
export function responsesAssembler(): ReplyAssembler {
  let output: unknown[] | undefined;
  let id: unknown;
  return {
    event(data) {
      if (!isObject(data) || data.type !== 'response.completed' || !isObject(data.response)) return;
      if (Array.isArray(data.response.output)) output = data.response.output;
      id = data.response.id;
    },
    reply: () => (output === undefined ? undefined : withId(responsesReply(output), id)),
  };
}
