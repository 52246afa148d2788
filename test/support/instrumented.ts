// The instrumentation on the real OTel SDK, with the provider SDKs loaded
// through `require` after it is enabled, as `--require .../register` does.

import { createRequire } from 'node:module';
import { SessionInvariantInstrumentation, type SessionInvariantInstrumentationConfig } from '../../src/index';
import { registerOtel, type OtelHarness } from './otel';

const requireFromHere = createRequire(__filename);

export type OpenAIModule = typeof import('openai');
export type AnthropicModule = typeof import('@anthropic-ai/sdk');

export interface Instrumented {
  otel: OtelHarness;
  instrumentation: SessionInvariantInstrumentation;
  openai: OpenAIModule;
  anthropic: AnthropicModule;
}

export function instrument(config: SessionInvariantInstrumentationConfig = {}): Instrumented {
  const otel = registerOtel();
  const instrumentation = new SessionInvariantInstrumentation(config);
  instrumentation.setTracerProvider(otel.tracerProvider);
  instrumentation.setMeterProvider(otel.meterProvider);
  const openai = requireFromHere('openai') as OpenAIModule;
  const anthropic = requireFromHere('@anthropic-ai/sdk') as AnthropicModule;
  return { otel, instrumentation, openai, anthropic };
}
