// Keeping the log in lockstep with a multi-step AI SDK run: each step's
// response messages (the assistant's reply, then the tool results) go into
// the log before the next step's request is built from it.

import { fromAiSdkPrompt } from '../adapters/ai-sdk';
import { appendMessage } from '../append-message';
import type { SessionLog } from '../session-log';

interface StepLike {
  response?: { messages?: readonly unknown[] };
}

/**
 * An `onStepEnd` (or `onStepFinish`) callback that appends each step's
 * response messages to `log`. The AI SDK awaits it before starting the next
 * step, so every request of the loop is reconstructable from the log.
 */
export function recordAiSdkSteps(log: SessionLog): (step: StepLike) => void {
  return (step) => {
    for (const message of fromAiSdkPrompt(step.response?.messages ?? [])) appendMessage(log, message);
  };
}
