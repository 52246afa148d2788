// `node --require nous-session-invariant/register app.js`: enables the
// instrumentation and makes sure its telemetry goes somewhere (see
// register/start.ts). ESM apps use `--import`, which loads register.mts.
import { warnIfEsmAppWithoutHook } from './register/esm-entry';
import { register } from './register/start';

const registration = register();
warnIfEsmAppWithoutHook();

/**
 * Flushes the telemetry of the SDK `register` started and stops it, waiting at
 * most SHUTDOWN_TIMEOUT_MS (3 s). Await it before `process.exit()`, which
 * runs no asynchronous work and so would drop what is not yet exported. A
 * no-op when `register` attached to an SDK the app runs itself.
 */
export function shutdown(): Promise<void> {
  return registration.shutdown();
}
