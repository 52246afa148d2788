// The Vercel AI SDK: zero code through its `ai:telemetry` channel (AI SDK 7),
// which lives as long as the instrumentation is enabled.

import type { Integration } from '../../instrumentation/integration';
import { subscribeAiSdkTelemetry } from './telemetry-channel';

export const aiSdkIntegration: Integration = {
  name: 'ai',
  esmInclude: [],
  definitions: () => [],
  start: subscribeAiSdkTelemetry,
};
