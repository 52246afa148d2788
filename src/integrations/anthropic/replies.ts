// Anthropic Messages replies: a JSON body, or its stream of events.

import { isObject } from '../../reading/canonical';
import { withId, type Reply, type ReplyAssembler } from '../http/reply-assemblers';
import { fromAnthropicReply } from './adapter';

/** An Anthropic Messages reply in a JSON response body. */
export function anthropicReplyFromBody(body: unknown): Reply | undefined {
  return isObject(body) && Array.isArray(body.content) ? withId({ messages: fromAnthropicReply(body.content) }, body.id) : undefined;
}

/** Messages events: content blocks opened, extended by deltas and closed. */
export function anthropicAssembler(): ReplyAssembler {
  const blocks: Array<Record<string, unknown> & { json?: string }> = [];
  let stopped = false;
  let id: unknown;
  return {
    event(data) {
      if (!isObject(data)) return;
      if (data.type === 'message_start' && isObject(data.message)) {
        id = data.message.id;
      } else if (data.type === 'content_block_start' && typeof data.index === 'number' && isObject(data.content_block)) {
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
      return withId({ messages: fromAnthropicReply(content) }, id);
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
