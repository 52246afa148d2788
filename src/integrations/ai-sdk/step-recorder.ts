// Keeping a log in step with a multi-step AI SDK run: each step's response
// messages (the assistant's reply, then the tool results) go into the log
// before the next step's request is built from it.

import { appendOrWarn } from '../../log/append-message';
import type { SessionLog } from '../../log/session-log';
import { messagesMatch } from '../../invariant/message-equality';
import type { Message } from '../../invariant/messages';
import { fromAiSdkPrompt } from './adapter';

interface StepLike {
  response?: { messages?: readonly unknown[] };
}

/**
 * An `onStepFinish` / `onStepEnd` callback that appends what each step added
 * to `log`. The AI SDK awaits it before the next step, so every request of
 * the loop is reconstructable from the log. AI SDK 7 hands a step its own
 * response messages; 5 and 6 hand it every response message of the call so
 * far. Either way only what the log does not end with yet is appended: the
 * longest run of the step's messages that the log already ends with is
 * skipped (tool call ids make a real repeat impossible).
 */
export function recordAiSdkSteps(log: SessionLog): (step: StepLike) => void {
  return (step) => {
    const messages = fromAiSdkPrompt(step?.response?.messages ?? []);
    const skip = overlap(log.deriveMessages(), messages);
    for (const message of messages.slice(skip)) appendOrWarn(log, message, 'recordAiSdkSteps');
  };
}

/** The length of the longest prefix of `next` that `fold` ends with. */
function overlap(fold: readonly Message[], next: readonly Message[]): number {
  for (let length = Math.min(fold.length, next.length); length > 0; length--) {
    let matches = true;
    for (let i = 0; i < length && matches; i++) matches = messagesMatch(next[i], fold[fold.length - length + i]!);
    if (matches) return length;
  }
  return 0;
}
