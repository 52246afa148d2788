// Cohere v2 chat replies: a JSON body (`message` is the reply), or its
// stream of server-sent events, `message-start` to `message-end`.

import { isObject } from '../../reading/canonical';
import type { Reply, ReplyAssembler } from '../http/reply-assemblers';
import { withId } from '../http/reply-assemblers';
import { fromCohereMessage } from './adapter';

/** The reply in a JSON body: its `message`. */
export function cohereReplyFromBody(body: unknown): Reply | undefined {
  if (!isObject(body) || !isObject(body.message)) return undefined;
  return { messages: [fromCohereMessage({ ...body.message, role: 'assistant' })] };
}

/** A call as its events build it. */
interface CallState {
  id: unknown;
  name: unknown;
  arguments: string;
}

/**
 * The v2 stream's events, by their `type`: `content-start` and
 * `content-delta` add text (or thinking) to the content part at their
 * `index`, `tool-plan-delta` to the plan, `tool-call-start` opens the call
 * at its `index` and `tool-call-delta` adds to its arguments;
 * `message-end` ends the reply (citations and debug events are not read).
 */
export function cohereAssembler(): ReplyAssembler {
  const parts = new Map<number, { type: string; text: string }>();
  const calls = new Map<number, CallState>();
  let plan = '';
  let id: unknown;
  let done = false;
  const messageOf = (data: Record<string, unknown>): Record<string, unknown> | undefined =>
    isObject(data.delta) && isObject(data.delta.message) ? data.delta.message : undefined;
  return {
    event(data, name) {
      if (!isObject(data) || done) return;
      const type = typeof data.type === 'string' ? data.type : name;
      const index = typeof data.index === 'number' ? data.index : 0;
      const message = messageOf(data);
      switch (type) {
        case 'message-start':
          id = data.id;
          return;
        case 'content-start':
        case 'content-delta': {
          const content = message?.content;
          if (!isObject(content)) return;
          const part = parts.get(index) ?? { type: typeof content.type === 'string' ? content.type : 'text', text: '' };
          parts.set(index, part);
          if (typeof content.text === 'string') part.text += content.text;
          if (typeof content.thinking === 'string') {
            part.type = 'thinking';
            part.text += content.thinking;
          }
          return;
        }
        case 'tool-plan-delta':
          if (typeof message?.tool_plan === 'string') plan += message.tool_plan;
          return;
        case 'tool-call-start': {
          const call = message?.tool_calls;
          if (!isObject(call)) return;
          const fn = isObject(call.function) ? call.function : {};
          calls.set(index, { id: call.id, name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '' });
          return;
        }
        case 'tool-call-delta': {
          const fn = isObject(message?.tool_calls) && isObject(message.tool_calls.function) ? message.tool_calls.function : undefined;
          const call = calls.get(index);
          if (call && typeof fn?.arguments === 'string') call.arguments += fn.arguments;
          return;
        }
        case 'message-end':
          done = true;
          return;
        default:
          return; // citations, debug events: not part of the reply's messages
      }
    },
    finished: () => done,
    reply() {
      if (!done) return undefined;
      const content = [...parts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, part]) => (part.type === 'thinking' ? { type: 'thinking', thinking: part.text } : { type: part.type, text: part.text }));
      const tool_calls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
      const message = fromCohereMessage({ role: 'assistant', content, tool_calls, tool_plan: plan });
      return withId({ messages: [message] }, id);
    },
  };
}
