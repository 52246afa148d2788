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
import { frameworkRunStorage, type RunKey } from '../../request-path/run';
import { contained } from '../../telemetry/internal-error';
import { lazyPart } from '../../lazy-part';
import type { StepEvent } from './channel-check';

/** The AI SDK's tracing channel. */
export const AI_SDK_TELEMETRY_CHANNEL = 'ai:telemetry';

const SEAM = { name: 'AI SDK telemetry channel', mayThrow: false };
const RUN_TYPES = new Set(['generateText', 'streamText', 'generateObject', 'streamObject']);

interface ChannelMessage {
  type?: unknown;
  event?: StepEvent;
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
  checkStep(event, message.result);
}

/** The check of a step, loaded at the first language-model call it is needed for, not at start-up. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the AI SDK first calls a model
const channelCheck = lazyPart('ai-sdk/channel-check', () => require('./channel-check') as typeof import('./channel-check'));

function checkStep(event: StepEvent, result: unknown): void {
  channelCheck().checkChannelStep(event, result, SEAM);
}
