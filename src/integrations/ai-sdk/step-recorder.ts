// Keeping a log in step with a multi-step AI SDK run: each step's response
// messages (the assistant's reply, then the tool results) go into the log
// before the next step's request is built from it.
//
// What a step hands over differs by version. AI SDK 7 gives a step its own
// response messages. AI SDK 5 and 6 give every step all the response
// messages of the call so far: step n's list is step n-1's list followed by
// step n's own. So a step's new messages are what follows the list the
// previous step of the same call handed over. That is read from the steps
// themselves, not guessed from the log's tail, where a reply equal to the
// message the log ends with (the same words said twice) would look old.

import { appendOrWarn } from '../../log/append-message';
import type { SessionLog } from '../../log/session-log';
import { messagesMatch } from '../../invariant/message-equality';
import type { Message } from '../../model/messages';
import { fromAiSdkPrompt } from './adapter';

interface StepLike {
  /** AI SDK 6 and 7: the step's index in its call, from 0. AI SDK 5 has none. */
  stepNumber?: number;
  response?: { messages?: readonly unknown[] };
}

/** The last step recorded into a log, and the messages it handed over. */
interface LastStep {
  readonly step: object;
  readonly messages: readonly Message[];
}

/**
 * Per log, not per callback: a callback made anew for every step
 * (`onStepFinish: (step) => recordAiSdkSteps(log)(step)`) is the same
 * recorder.
 */
const lastSteps = new WeakMap<SessionLog, LastStep>();

/**
 * An `onStepFinish` / `onStepEnd` callback that appends what each step added
 * to `log`. The AI SDK awaits it before the next step, so every request of
 * the loop is reconstructable from the log.
 *
 * AI SDK 7 hands a step its own response messages; 5 and 6 hand it every
 * response message of the call so far, and then only those after the ones
 * the previous step of the call handed over are appended. A step continues
 * a call when its list starts with the previous step's whole list and that
 * list ends with tool results (a call takes another step only after its
 * tools ran, and tool call ids are not repeated), and, where the step is
 * numbered (AI SDK 6 and 7), when its `stepNumber` is not 0. The same step
 * object handed over twice adds nothing the second time.
 */
export function recordAiSdkSteps(log: SessionLog): (step: StepLike) => void {
  return (step) => {
    const messages = fromAiSdkPrompt(responseMessages(step));
    const last = lastSteps.get(log);
    if (last?.step === step) return;
    const skip = last && continuesCall(step, messages, last) ? last.messages.length : 0;
    for (const message of messages.slice(skip)) appendOrWarn(log, message, 'recordAiSdkSteps');
    if (typeof step === 'object' && step !== null) lastSteps.set(log, { step, messages });
  };
}

/** Whether `step`, handing over `messages`, is a later step of the call whose previous step was `last`. */
function continuesCall(step: StepLike, messages: readonly Message[], last: LastStep): boolean {
  if (readStepNumber(step) === 0 || last.messages[last.messages.length - 1]?.role !== 'tool') return false;
  return startsWith(messages, last.messages);
}

function responseMessages(step: StepLike): readonly unknown[] {
  try {
    return step?.response?.messages ?? [];
  } catch {
    return []; // an unreadable step adds nothing
  }
}

function readStepNumber(step: StepLike): number | undefined {
  try {
    return typeof step.stepNumber === 'number' ? step.stepNumber : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `list` begins with every message of `prefix`, in order. */
function startsWith(list: readonly Message[], prefix: readonly Message[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (!messagesMatch(list[i], prefix[i]!)) return false;
  return true;
}
