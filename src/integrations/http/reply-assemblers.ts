// The model's reply from a response body, per API: the JSON body, or the
// stream of events it arrives as, assembled into the message it amounts to.

import { isObject } from '../../adapters/canonical';
import type { Message } from '../../invariant/messages';
import type { StoredReplyMessage } from '../../request-path/check-request';
import type { ReplyFormat } from '../../request-path/model-request';
import { fromAnthropicReply } from '../anthropic/adapter';
import { fromOpenAIChat } from '../openai/chat-adapter';
import { fromOpenAIResponsesOutput } from '../openai/responses-adapter';

/** The model's reply, and its messages as the items the provider stored (a later request may refer to them instead of re-sending them). */
export interface Reply {
  messages: Message[];
  items?: StoredReplyMessage[];
}

/** Collects a streamed reply event by event; `reply()` once the stream ended. */
export interface ReplyAssembler {
  event(data: unknown, name: string | undefined): void;
  reply(): Reply | undefined;
}

/** The reply in a JSON response body. */
export function replyFromBody(format: ReplyFormat, body: unknown): Reply | undefined {
  if (!isObject(body)) return undefined;
  switch (format) {
    case 'openai.chat': {
      const choice = Array.isArray(body.choices) ? (body.choices[0] as unknown) : undefined;
      return isObject(choice) && isObject(choice.message) ? { messages: fromOpenAIChat([choice.message]) } : undefined;
    }
    case 'openai.responses':
      return Array.isArray(body.output) ? responsesReply(body.output) : undefined;
    case 'anthropic.messages':
      return Array.isArray(body.content) ? { messages: fromAnthropicReply(body.content) } : undefined;
  }
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

/**
 * A fresh assembler for one streamed reply in `format`: it collects the
 * server-sent events and, once the stream has ended, builds the reply they
 * amount to (docs/behaviour.md §8.4).
 */
export function replyAssembler(format: ReplyFormat): ReplyAssembler {
  switch (format) {
    case 'openai.chat':
      return chatAssembler();
    case 'openai.responses':
      return responsesAssembler();
    case 'anthropic.messages':
      return anthropicAssembler();
  }
}

/** Chat Completions chunks: choice 0's deltas, text concatenated, tool calls by index. */
function chatAssembler(): ReplyAssembler {
  let text = '';
  let sawText = false;
  const calls: Array<{ id?: string; name: string; arguments: string }> = [];
  let done = false;
  return {
    event(data) {
      if (!isObject(data) || !Array.isArray(data.choices)) return;
      const choice = data.choices.find((c: unknown) => isObject(c) && (c.index ?? 0) === 0) as unknown;
      if (!isObject(choice) || !isObject(choice.delta)) return;
      const delta = choice.delta;
      if (typeof delta.content === 'string') {
        text += delta.content;
        sawText = true;
      }
      for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (!isObject(call)) continue;
        const index = typeof call.index === 'number' ? call.index : calls.length;
        const slot = (calls[index] ??= { name: '', arguments: '' });
        if (typeof call.id === 'string') slot.id = call.id;
        const fn = isObject(call.function) ? call.function : {};
        if (typeof fn.name === 'string') slot.name += fn.name;
        if (typeof fn.arguments === 'string') slot.arguments += fn.arguments;
      }
      if (choice.finish_reason != null) done = true;
    },
    reply() {
      if (!done) return undefined;
      const message: Record<string, unknown> = { role: 'assistant', content: sawText ? text : null };
      const toolCalls = calls
        .filter((c) => c !== undefined)
        .map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      return { messages: fromOpenAIChat([message]) };
    },
  };
}

/** Responses events: the final response's output items. */
function responsesAssembler(): ReplyAssembler {
  let output: unknown[] | undefined;
  return {
    event(data) {
      if (!isObject(data) || data.type !== 'response.completed' || !isObject(data.response)) return;
      if (Array.isArray(data.response.output)) output = data.response.output;
    },
    reply: () => (output === undefined ? undefined : responsesReply(output)),
  };
}

/** Messages events: content blocks opened, extended by deltas and closed. */
function anthropicAssembler(): ReplyAssembler {
  const blocks: Array<Record<string, unknown> & { json?: string }> = [];
  let stopped = false;
  return {
    event(data) {
      if (!isObject(data)) return;
      if (data.type === 'content_block_start' && typeof data.index === 'number' && isObject(data.content_block)) {
        blocks[data.index] = { ...data.content_block };
      } else if (data.type === 'content_block_delta' && typeof data.index === 'number' && isObject(data.delta)) {
        const block = blocks[data.index];
        const delta = data.delta;
        if (!block) return;
        if (delta.type === 'text_delta' && typeof delta.text === 'string')
          block.text = `${(block.text as string | undefined) ?? ''}${delta.text}`;
        else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string')
          block.json = `${block.json ?? ''}${delta.partial_json}`;
      } else if (data.type === 'message_stop') {
        stopped = true;
      }
    },
    reply() {
      if (!stopped) return undefined;
      const content = blocks
        .filter((b) => b !== undefined)
        .map(({ json, ...block }) => (json === undefined ? block : { ...block, input: parseOr(json, block.input) }));
      return { messages: fromAnthropicReply(content) };
    },
  };
}

function parseOr(text: string, fallback: unknown): unknown {
  if (text === '') return fallback ?? {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback ?? {};
  }
}
