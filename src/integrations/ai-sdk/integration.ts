// The Vercel AI SDK: zero code through its `ai:telemetry` channel (AI SDK 7),
// which lives as long as the instrumentation is enabled, and, on AI SDK 5 and
// 6, which have no channel, its run functions wrapped so each call is a run.

import type { Integration } from '../integration';
import { aiSdkRunDefinition } from './run-hook';
import { subscribeAiSdkTelemetry } from './telemetry-channel';

/**
 * The Vercel AI SDK with zero code: a subscriber to AI SDK 7's `ai:telemetry`
 * diagnostics channel while the instrumentation is enabled. On AI SDK 5 and 6
 * (no channel) it wraps the `ai` module's `generateText`/`streamText`/
 * `generateObject`/`streamObject` and agent classes so each call is one run
 * (docs/behaviour.md §8.3). The channel binds each language-model call as one framework call, and
 * checks calls neither the middleware nor the fetch seam saw; a subscriber
 * cannot throw into the caller, so strict is recorded as warn there
 * (docs/behaviour.md §5.3, §8.3, §8.5).
 */
export const aiSdkIntegration: Integration = {
  name: 'ai',
  // `ai` by name, and its entry files by path (an app may import one by file URL).
  esmInclude: ['ai', /\/node_modules\/ai\/dist\/index\.m?js$/],
  definitions: (patcher) => [aiSdkRunDefinition(patcher)],
  start: subscribeAiSdkTelemetry,
};
