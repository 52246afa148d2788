// The Vercel AI SDK: zero code through its `ai:telemetry` channel (AI SDK 7),
// which lives as long as the instrumentation is enabled.

import type { Integration } from '../../instrumentation/integration';
import { subscribeAiSdkTelemetry } from './telemetry-channel';

/**
 * The Vercel AI SDK with zero code: a subscriber to AI SDK 7's `ai:telemetry`
 * diagnostics channel while the instrumentation is enabled. It patches no
 * module. The channel binds each language-model call as one framework call, and
 * checks calls neither the middleware nor the fetch seam saw; a subscriber
 * cannot throw into the caller, so strict is recorded as warn there
 * (docs/behaviour.md §5.3, §8.3, §8.5).
 */
export const aiSdkIntegration: Integration = {
  name: 'ai',
  esmInclude: [],
  definitions: () => [],
  start: subscribeAiSdkTelemetry,
};
