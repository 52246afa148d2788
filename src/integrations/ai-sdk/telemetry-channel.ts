// AI SDK 7's `ai:telemetry` tracing channel, which publishes every
// `generateText`/`streamText` call and every language-model call inside it.
// It gives the package two things with no code: runs (a call is one run, for
// the implicit log's lost-reply rule) and call scopes (so a request checked
// by the middleware or the fetch seam is not checked again). A language-model
// call that neither saw (a provider given a custom `fetch`) is checked from
// the channel's own event when it settles: a subscriber cannot throw into the
// call, so that path records only (strict counts as warn).

import diagnosticsChannel from 'node:diagnostics_channel';
import { callScopeStorage, type CallScope } from '../../request-path/call-scope';
import { checkModelRequest } from '../../request-path/check-request';
import { frameworkRunStorage, type RunKey } from '../../request-path/run';
import { contained } from '../../telemetry/internal-error';
import { isWalkable } from '../../reading/canonical';
import { replyOf } from './middleware';
import { aiSdkModelRequest } from './model-request';

/** The AI SDK's tracing channel. */
export const AI_SDK_TELEMETRY_CHANNEL = 'ai:telemetry';

const SEAM = { name: 'AI SDK telemetry channel', mayThrow: false };
const RUN_TYPES = new Set(['generateText', 'streamText', 'generateObject', 'streamObject']);

interface ChannelMessage {
  type?: unknown;
  event?: { provider?: unknown; modelId?: unknown; instructions?: unknown; messages?: unknown };
  result?: unknown;
}

/** Scopes by message, to settle each language-model call once (`error` and `asyncEnd` may both fire). */
const scopes = new WeakMap<object, CallScope>();
/** The AI SDK publishes again for a retried attempt of a step: one logical request, one check. */
const checkedSteps = new WeakSet<object>();

/** Subscribes; returns the function that unsubscribes. */
export function subscribeAiSdkTelemetry(): () => void {
  const channel = diagnosticsChannel.tracingChannel(AI_SDK_TELEMETRY_CHANNEL);
  const runOf = (message: unknown): RunKey | undefined => (RUN_TYPES.has(typeOf(message)) ? {} : frameworkRunStorage.getStore());
  const scopeOf = (message: unknown): CallScope | undefined => {
    if (typeOf(message) !== 'languageModelCall') return callScopeStorage.getStore();
    const scope: CallScope = { claimed: false, seenBelow: false };
    scopes.set(message as object, scope);
    return scope;
  };
  channel.start.bindStore(frameworkRunStorage, runOf);
  channel.start.bindStore(callScopeStorage, scopeOf);
  const noop = () => {};
  const onSettled = (message: unknown) => contained(SEAM.name, () => settle(message as ChannelMessage), undefined);
  const handlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: onSettled, error: onSettled };
  channel.subscribe(handlers);
  return () => {
    channel.start.unbindStore(frameworkRunStorage);
    channel.start.unbindStore(callScopeStorage);
    channel.unsubscribe(handlers);
  };
}

function typeOf(message: unknown): string {
  try {
    return typeof message === 'object' && message !== null && typeof (message as ChannelMessage).type === 'string'
      ? ((message as ChannelMessage).type as string)
      : '';
  } catch {
    return '';
  }
}

function settle(message: ChannelMessage): void {
  if (typeof message !== 'object' || message === null) return;
  const scope = scopes.get(message);
  if (!scope) return;
  scopes.delete(message);
  if (scope.claimed || scope.seenBelow) return;
  const event = message.event;
  if (typeof event !== 'object' || event === null || !Array.isArray(event.messages)) return;
  if (checkedSteps.has(event.messages)) return;
  checkedSteps.add(event.messages);
  // A list too long to walk (a sparse `length = 2**32 - 1`) is handed on unread, for the check to report.
  const instructions = instructionsAsMessages(event.instructions);
  const unwalkable = [instructions, event.messages].find((list) => !isWalkable(list));
  const prompt = unwalkable ?? [...instructions, ...(event.messages as unknown[])];
  const pending = checkModelRequest(aiSdkModelRequest(prompt, event.provider, event.modelId), {}, SEAM);
  pending?.reply(replyOf(message.result));
}

function instructionsAsMessages(instructions: unknown): unknown[] {
  if (typeof instructions === 'string') return instructions === '' ? [] : [{ role: 'system', content: instructions }];
  if (Array.isArray(instructions)) return instructions as unknown[]; // unwalkable ones are refused by the caller
  if (instructions && typeof instructions === 'object') return [instructions];
  return [];
}
