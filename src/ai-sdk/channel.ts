// The zero-code seam of AI SDK 7: `diagnostics_channel.tracingChannel('ai:telemetry')`
// publishes every language-model call (its messages and instructions) with
// nothing registered. A subscriber cannot safely throw, so this path records
// (strict counts as warn); strict mode stays with the middleware, which reads
// what the subscriber found for the same call instead of recording it twice.

import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { checkAiSdkCall, type AiSdkCheck } from './check-call';

export const AI_SDK_TELEMETRY_CHANNEL = 'ai:telemetry';

interface LanguageModelCallMessage {
  type?: unknown;
  event?: { provider?: unknown; modelId?: unknown; instructions?: unknown; messages?: unknown };
}

/** What the subscriber found for the model call running in this async context. */
const checkedByChannel = new AsyncLocalStorage<{ result: AiSdkCheck | undefined }>();

export function channelCheckForCurrentCall(): { result: AiSdkCheck | undefined } | undefined {
  return checkedByChannel.getStore();
}

let unsubscribe: (() => void) | undefined;

/** Subscribes once per process; returns the function that unsubscribes. */
export function subscribeAiSdkTelemetry(): () => void {
  if (unsubscribe) return unsubscribe;
  const channel = diagnosticsChannel.tracingChannel(AI_SDK_TELEMETRY_CHANNEL);
  // The store is bound while the call runs, so the middleware inside it can see this check.
  const transform = (message: unknown) => ({ result: onStart(message as LanguageModelCallMessage) });
  channel.start.bindStore(checkedByChannel, transform);
  const noop = () => {};
  const handlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop };
  channel.subscribe(handlers);
  unsubscribe = () => {
    channel.start.unbindStore(checkedByChannel);
    channel.unsubscribe(handlers);
    unsubscribe = undefined;
  };
  return unsubscribe;
}

/** Per step's message list: the AI SDK publishes again for a retried attempt, which counts once. */
const checkedSteps = new WeakMap<object, AiSdkCheck | undefined>();

function onStart(message: LanguageModelCallMessage): AiSdkCheck | undefined {
  if (message?.type !== 'languageModelCall' || !message.event || !Array.isArray(message.event.messages)) return undefined;
  const { provider, modelId, instructions, messages } = message.event;
  if (checkedSteps.has(messages)) return checkedSteps.get(messages);
  const result = checkAiSdkCall(
    {
      prompt: [...instructionsAsMessages(instructions), ...(messages as unknown[])],
      provider: typeof provider === 'string' ? provider : undefined,
      modelId: typeof modelId === 'string' ? modelId : undefined,
    },
    {},
    false,
  );
  checkedSteps.set(messages, result);
  return result;
}

function instructionsAsMessages(instructions: unknown): unknown[] {
  if (typeof instructions === 'string') return instructions === '' ? [] : [{ role: 'system', content: instructions }];
  if (Array.isArray(instructions)) return instructions as unknown[];
  if (instructions && typeof instructions === 'object') return [instructions];
  return [];
}
