// Zero code for AI SDK 7: a subscriber on the `ai:telemetry` tracing channel,
// which publishes every language-model call's messages and instructions.
// A subscriber cannot throw into the call, so this path records only (strict
// counts as warn). When the middleware runs in the same call it takes the
// call over: it sees the final prompt (after any other middleware) and can
// throw, so a call is never counted twice.

import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { checkModelRequest } from '../../request-path/check-request';
import { contained } from '../../telemetry/internal-error';
import { aiSdkModelRequest } from './model-request';

/** The AI SDK's tracing channel. */
export const AI_SDK_TELEMETRY_CHANNEL = 'ai:telemetry';

interface CallState {
  claimed: boolean;
}

const currentCall = new AsyncLocalStorage<CallState>();
const states = new WeakMap<object, CallState>();
/** The AI SDK publishes again for a retried attempt of a step: one logical request, one check. */
const checkedSteps = new WeakSet<object>();

/** Called by the middleware: this call is checked there, not by the subscriber. */
export function claimCurrentCall(): void {
  const state = currentCall.getStore();
  if (state) state.claimed = true;
}

const SEAM = { name: 'AI SDK telemetry channel', mayThrow: false };

/** Subscribes; returns the function that unsubscribes. */
export function subscribeAiSdkTelemetry(): () => void {
  const channel = diagnosticsChannel.tracingChannel(AI_SDK_TELEMETRY_CHANNEL);
  const transform = (message: unknown): CallState => {
    const state: CallState = { claimed: false };
    if (typeof message === 'object' && message !== null) states.set(message, state);
    return state;
  };
  channel.start.bindStore(currentCall, transform);
  const noop = () => {};
  const onSettled = (message: unknown) => contained(SEAM.name, () => settle(message), undefined);
  const handlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: onSettled, error: onSettled };
  channel.subscribe(handlers);
  return () => {
    channel.start.unbindStore(currentCall);
    channel.unsubscribe(handlers);
  };
}

function settle(message: unknown): void {
  if (typeof message !== 'object' || message === null) return;
  const state = states.get(message);
  if (!state || state.claimed) return;
  state.claimed = true; // `error` and `asyncEnd` may both fire
  const { type, event } = message as { type?: unknown; event?: { provider?: unknown; modelId?: unknown; instructions?: unknown; messages?: unknown } };
  if (type !== 'languageModelCall' || typeof event !== 'object' || event === null || !Array.isArray(event.messages)) return;
  if (checkedSteps.has(event.messages)) return;
  checkedSteps.add(event.messages);
  const prompt = [...instructionsAsMessages(event.instructions), ...(event.messages as unknown[])];
  checkModelRequest(aiSdkModelRequest(prompt, event.provider, event.modelId), {}, SEAM);
}

function instructionsAsMessages(instructions: unknown): unknown[] {
  if (typeof instructions === 'string') return instructions === '' ? [] : [{ role: 'system', content: instructions }];
  if (Array.isArray(instructions)) return instructions as unknown[];
  if (instructions && typeof instructions === 'object') return [instructions];
  return [];
}
