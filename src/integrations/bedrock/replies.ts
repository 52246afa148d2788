// Converse replies: the `output.message` of a Converse response, or the
// events of a ConverseStream response as the SDK yields them.

import { isObject } from '../../reading/canonical';
import type { Message } from '../../model/messages';
import { fromConverseReply } from './adapter';

/** The reply message of a Converse response (the command's output), if it has one. */
export function converseReply(output: unknown): Message[] | undefined {
  if (!isObject(output) || !isObject(output.output) || !isObject(output.output.message)) return undefined;
  const content = output.output.message.content;
  return Array.isArray(content) ? fromConverseReply(content) : undefined;
}

/** Collects the events of one ConverseStream reply; `reply()` once `messageStop` came. */
export interface ConverseAssembler {
  event(event: unknown): void;
  reply(): Message[] | undefined;
}

/**
 * A ConverseStream reply from its events, each an object with one member:
 * `contentBlockStart` opens a tool call (`start.toolUse`), `contentBlockDelta`
 * extends a block by its index (text, or a piece of a tool call's JSON
 * input), `messageStop` ends the reply. A text block has no start event.
 */
export function converseAssembler(): ConverseAssembler {
  const blocks: Array<{ text?: string; toolUse?: { toolUseId: unknown; name: unknown }; json?: string; reasoning?: true }> = [];
  let stopped = false;
  const blockAt = (index: unknown) => (typeof index === 'number' && index >= 0 && index < 10_000 ? (blocks[index] ??= {}) : undefined);
  return {
    event(event) {
      if (!isObject(event)) return;
      if (isObject(event.contentBlockStart) && isObject(event.contentBlockStart.start)) {
        const block = blockAt(event.contentBlockStart.contentBlockIndex);
        const toolUse = event.contentBlockStart.start.toolUse;
        if (block && isObject(toolUse)) block.toolUse = { toolUseId: toolUse.toolUseId, name: toolUse.name };
      } else if (isObject(event.contentBlockDelta) && isObject(event.contentBlockDelta.delta)) {
        const block = blockAt(event.contentBlockDelta.contentBlockIndex);
        const delta = event.contentBlockDelta.delta;
        if (!block) return;
        if (typeof delta.text === 'string') block.text = `${block.text ?? ''}${delta.text}`;
        else if (isObject(delta.toolUse) && typeof delta.toolUse.input === 'string')
          block.json = `${block.json ?? ''}${delta.toolUse.input}`;
        else if (delta.reasoningContent !== undefined) block.reasoning = true;
      } else if (event.messageStop !== undefined) {
        stopped = true;
      }
    },
    reply() {
      if (!stopped) return undefined;
      const content = blocks
        .filter((block) => block !== undefined)
        .map((block) => {
          if (block.toolUse) return { toolUse: { ...block.toolUse, input: parseOr(block.json) } };
          if (block.reasoning) return { reasoningContent: {} };
          return { text: block.text ?? '' };
        });
      return fromConverseReply(content);
    },
  };
}

function parseOr(text: string | undefined): unknown {
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}
