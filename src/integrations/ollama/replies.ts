// Ollama chat replies: one JSON `ChatResponse`, or the stream of them
// (newline-delimited JSON) that `/api/chat` sends by default, ending with
// one that says `done: true`.

import type { Message } from '../../model/messages';
import { isObject } from '../../reading/canonical';
import type { Reply, ReplyAssembler } from '../http/reply-assemblers';
import { positionalCallIds } from '../../invariant/positional-call-ids';
import { fromOllamaMessage } from './adapter';

/** The reply in a JSON body: one finished `ChatResponse`. */
export function ollamaReplyFromBody(body: unknown): Reply | undefined {
  const assembler = ollamaAssembler();
  assembler.event(body, undefined);
  return assembler.reply();
}

/**
 * A streamed reply, line by line: each line's `message` adds its `content`
 * and `thinking` to the text so far and its `tool_calls` to the calls; the
 * line with `done: true` ends it (the client stops reading there). A reply
 * is the one assistant message they make, once done.
 */
export function ollamaAssembler(): ReplyAssembler {
  let content = '';
  let thinking = '';
  const calls: unknown[] = [];
  let done = false;
  return {
    event(data) {
      if (!isObject(data) || done) return;
      const message = data.message;
      if (isObject(message)) {
        if (typeof message.content === 'string') content += message.content;
        if (typeof message.thinking === 'string') thinking += message.thinking;
        if (Array.isArray(message.tool_calls)) calls.push(...(message.tool_calls as unknown[]));
      }
      if (data.done === true) done = true;
    },
    finished: () => done,
    reply() {
      if (!done) return undefined;
      const message = fromOllamaMessage({ role: 'assistant', content, thinking, tool_calls: calls });
      // Read as requests are: call ids by position (docs/behaviour.md §4.3 rule 30).
      return { messages: positionalCallIds([message]) as Message[] };
    },
  };
}
