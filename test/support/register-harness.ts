// For tests that run apps under `register` in subprocesses: a fake provider for
// the whole file, a fresh OTLP receiver for each test, and the environment that
// points an app at both.

import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startFakeProvider, type FakeProvider } from './fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver';

export interface RegisterHarness {
  /** Set in beforeAll. */
  provider: FakeProvider;
  /** A new one for every test. */
  receiver: OtlpReceiver;
  /** The app's environment: the fake provider, OTLP/HTTP JSON to the receiver, a service name, then `extra`. */
  otlpEnv(extra?: Record<string, string>): Record<string, string>;
}

export function useRegisterHarness(): RegisterHarness {
  const harness = {} as RegisterHarness;
  harness.otlpEnv = (extra = {}) => ({
    FAKE_PROVIDER_URL: harness.provider.openaiBaseURL,
    OTEL_EXPORTER_OTLP_ENDPOINT: harness.receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'agent-under-test',
    ...extra,
  });
  beforeAll(async () => {
    harness.provider = await startFakeProvider();
  });
  afterAll(async () => {
    await harness.provider.close();
    await harness.receiver?.close();
  });
  beforeEach(async () => {
    await harness.receiver?.close();
    harness.receiver = await startOtlpReceiver();
  });
  return harness;
}
