// Reading Responses-protocol items, which the OpenAI Responses API
// (snake_case: `call_id`, `function_call_output`) and the Agents SDK
// (camelCase: `callId`, `function_call_result`) both speak. `function_call`
// items are tool calls of the assistant message before them (or of a new one
// with null content); result items are tool messages.

import type { ContentPart, Message, MessageContent, ToolCall } from '../messages';
import { isObject, nameToolResultsFromCalls } from './shared';

export interface ItemDialect {
  callId: 'call_id' | 'callId';
  /** Item types that are tool results, and how to read their output. */
  resultTypes: readonly string[];
  readOutput(output: unknown): MessageContent;
  /** What to do with an item type that is none of the above: skip it, or keep it for the check to report. */
  isSkipped(type: string): boolean;
}

export function fromResponseItems(items: readonly unknown[], dialect: ItemDialect, out: Message[] = []): Message[] {
  for (const item of items) {
    if (!isObject(item)) {
      out.push(item as Message);
      continue;
    }
    const type = (item.type ?? 'message') as string;
    if (type === 'message' && typeof item.role === 'string') {
      const role = item.role === 'developer' ? 'system' : item.role;
      out.push({ role, content: fromResponseContent(item.content) } as Message);
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const call: ToolCall = {
        id: item[dialect.callId] as string,
        name: item.name as string,
        arguments: type === 'function_call' ? item.arguments : item.input,
      };
      const previous = out[out.length - 1];
      if (previous?.role === 'assistant') previous.toolCalls = [...(previous.toolCalls ?? []), call];
      else out.push({ role: 'assistant', content: null, toolCalls: [call] });
    } else if (dialect.resultTypes.includes(type)) {
      const message: Message = { role: 'tool', content: dialect.readOutput(item.output), toolCallId: item[dialect.callId] as string };
      if (typeof item.name === 'string') message.name = item.name;
      out.push(message);
    } else if (!dialect.isSkipped(type)) {
      out.push(item as unknown as Message);
    }
  }
  return nameToolResultsFromCalls(out);
}

export function fromResponseContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!Array.isArray(content)) return content as MessageContent;
  return content.map((part: unknown): ContentPart => {
    if (!isObject(part)) return part as ContentPart;
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text as string };
    if (part.type === 'input_image') {
      const url = part.image_url ?? part.image ?? part.file_id;
      if (typeof url === 'string') return { type: 'image', url };
    }
    return part as ContentPart;
  });
}
