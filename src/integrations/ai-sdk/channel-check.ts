// The check of one language-model call the AI SDK's `ai:telemetry` channel
// published and no other seam saw (telemetry-channel.ts): its prompt read as
// a model request and checked, its result taken as the reply. A module of its
// own so that the channel's subscription, made at start-up, loads no reader.

import { checkModelRequest } from '../../request-path/check-request';
import type { Seam } from '../../request-path/model-request';
import { isWalkable } from '../../reading/canonical';
import { replyOf } from './middleware';
import { aiSdkModelRequest } from './model-request';

/** A language-model call's event as the channel publishes it. */
export interface StepEvent {
  provider?: unknown;
  modelId?: unknown;
  instructions?: unknown;
  messages?: unknown;
}

/** Checks the call `event` describes (its `messages` a list) at `seam` and hands on its `result` as the reply. */
export function checkChannelStep(event: StepEvent, result: unknown, seam: Seam): void {
  // A list too long to walk (a sparse `length = 2**32 - 1`) is handed on unread, for the check to report.
  const instructions = instructionsAsMessages(event.instructions);
  const unwalkable = [instructions, event.messages].find((list) => !isWalkable(list));
  const prompt = unwalkable ?? [...instructions, ...(event.messages as unknown[])];
  const pending = checkModelRequest(aiSdkModelRequest(prompt, event.provider, event.modelId), {}, seam);
  pending?.reply(replyOf(result));
}

function instructionsAsMessages(instructions: unknown): unknown[] {
  if (typeof instructions === 'string') return instructions === '' ? [] : [{ role: 'system', content: instructions }];
  if (Array.isArray(instructions)) return instructions as unknown[]; // unwalkable ones are refused by the caller
  if (instructions && typeof instructions === 'object') return [instructions];
  return [];
}
