// The zero-code seam of AI SDK 7: `diagnostics_channel.tracingChannel('ai:telemetry')`
// publishes every language-model call (its messages and instructions) with
// nothing registered. A subscriber cannot safely throw, so this path only
// records (strict counts as warn), once the call has ended. When
// `sessionInvariantMiddleware` runs inside the call, it claims it: the
// middleware sees the final prompt (after any other middleware) and can throw,
// so the subscriber leaves that call to it.

import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { checkAiSdkCall } from './check-call';

export const AI_SDK_TELEMETRY_CHANNEL = 'ai:telemetry';

interface LanguageModelCallMessage {
  type?: unknown;
  event?: { provider?: unknown; modelId?: unknown; instructions?: unknown; messages?: unknown };
}

interface CallState {
  claimedByMiddleware: boolean;
}

const currentCall = new AsyncLocalStorage<CallState>();
const states = new WeakMap<object, CallState>();

/** Called by the middleware: this call is checked there, not by the subscriber. */
export function claimCurrentCall(): void {
  const state = currentCall.getStore();
  if (state) state.claimedByMiddleware = true;
}

let unsubscribe: (() => void) | undefined;

/** Subscribes once per process; returns the function that unsubscribes. */
export function subscribeAiSdkTelemetry(): () => void {
  if (unsubscribe) return unsubscribe;
  const channel = diagnosticsChannel.tracingChannel(AI_SDK_TELEMETRY_CHANNEL);
  const transform = (message: unknown): CallState => {
    const state: CallState = { claimedByMiddleware: false };
    if (typeof message === 'object' && message !== null) states.set(message, state);
    return state;
  };
  channel.start.bindStore(currentCall, transform);
  const noop = () => {};
  const onSettled = (message: unknown) => settle(message as LanguageModelCallMessage);
  const handlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: onSettled, error: onSettled };
  channel.subscribe(handlers);
  unsubscribe = () => {
    channel.start.unbindStore(currentCall);
    channel.unsubscribe(handlers);
    unsubscribe = undefined;
  };
  return unsubscribe;
}

/** The AI SDK publishes again for a retried attempt of a step: one logical request, one check. */
const checkedSteps = new WeakSet<object>();

function settle(message: LanguageModelCallMessage): void {
  const state = states.get(message);
  if (!state || state.claimedByMiddleware) return;
  state.claimedByMiddleware = true; // `error` and `asyncEnd` may both fire
  if (message?.type !== 'languageModelCall' || !message.event || !Array.isArray(message.event.messages)) return;
  const { provider, modelId, instructions, messages } = message.event;
  if (checkedSteps.has(messages)) return;
  checkedSteps.add(messages);
  checkAiSdkCall(
    {
      prompt: [...instructionsAsMessages(instructions), ...(messages as unknown[])],
      provider: typeof provider === 'string' ? provider : undefined,
      modelId: typeof modelId === 'string' ? modelId : undefined,
    },
    {},
    false,
  );
}

function instructionsAsMessages(instructions: unknown): unknown[] {
  if (typeof instructions === 'string') return instructions === '' ? [] : [{ role: 'system', content: instructions }];
  if (Array.isArray(instructions)) return instructions as unknown[];
  if (instructions && typeof instructions === 'object') return [instructions];
  return [];
}
