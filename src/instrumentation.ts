// nous-session-invariant/instrumentation: the OpenTelemetry instrumentation,
// to pass to your own NodeSDK (or `registerInstrumentations`).

export { SessionInvariantInstrumentation } from './instrumentation/session-invariant-instrumentation';
export type {
  ImplicitLogOptions,
  RedisCallClient,
  RedisSendCommand,
  RedisStoreClient,
  SessionInvariantInstrumentationConfig,
} from './instrumentation/config';
export type { ManualModules, SdkModule } from './integrations/manual-modules';
