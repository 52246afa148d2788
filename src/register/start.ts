// What `--require nous-session-invariant/register` (and `--import`) does:
// enable the instrumentation and make sure its telemetry goes somewhere,
// taking nothing from an SDK another tool registered before it.

import type { NodeSDK } from '@opentelemetry/sdk-node';
import { SessionInvariantInstrumentation } from '../instrumentation/session-invariant-instrumentation';
import { describeThrown } from '../result';
import { logWarning } from '../warnings';
import { ensureContextManager, registeredMeterProvider, registeredTracerProvider } from './existing-setup';
import { flushOnExit } from './exit-flush';
import { laterSetupWarning, laterSetups } from './later-setups';
import { loadedSdkProblem, SDK_INSTALL_COMMAND, sdkProblem } from './sdk-packages';
import { startupLine } from './startup-line';

/** What `register` set up: the instrumentation, the SDK it started (if any), and how to flush and stop it. */
export interface Registration {
  instrumentation: SessionInvariantInstrumentation;
  /** The SDK this package started (whole, or its metrics side only), or undefined when it only attached. */
  sdk: NodeSDK | undefined;
  /**
   * Flushes and shuts down the SDK this package started, waiting at most
   * SHUTDOWN_TIMEOUT_MS, once however often it is called; a no-op when the
   * package only attached to an SDK already registered.
   */
  shutdown(): Promise<void>;
}

const REGISTRATION = Symbol.for('nous-session-invariant.registration');
/** The longest a flush at exit (or a call to `shutdown`) waits: one export's timeout, and a margin. */
export const SHUTDOWN_TIMEOUT_MS = 3_000;

type Env = NodeJS.ProcessEnv;

/** Idempotent: `--require` and `--import` together, or a second load, register once. */
export function register(env: Env = process.env): Registration {
  const holder = globalThis as { [REGISTRATION]?: Registration };
  return (holder[REGISTRATION] ??= start(env));
}

function start(env: Env): Registration {
  const line = startupLine(env);
  if (line !== undefined) logWarning(line);
  const tracerProvider = registeredTracerProvider();
  const meterProvider = registeredMeterProvider();
  // A meter provider is all the counters need: with one registered, register only attaches.
  const starter = meterProvider ? undefined : loadSdkStarter(tracerProvider !== undefined);
  // Made after the SDK is loaded, as an app that starts NodeSDK itself makes its instrumentations (the require
  // hook the instrumentation installs looks only at the SDKs it patches: docs/performance.md "Cold start").
  const instrumentation = new SessionInvariantInstrumentation();
  const attached = { instrumentation, sdk: undefined, shutdown: async () => {} };
  if (tracerProvider) instrumentation.setTracerProvider(tracerProvider);
  if (meterProvider) instrumentation.setMeterProvider(meterProvider);
  // A set-up with only providers (no NodeSDK) may have no context manager: spans would not nest.
  if (tracerProvider || meterProvider) ensureContextManager();
  if (starter === undefined) return attached;
  let sdk: NodeSDK;
  try {
    sdk = tracerProvider ? starter.startMetricsSdk(env, instrumentation) : starter.startSdk(env, instrumentation);
  } catch (error) {
    // A configuration the SDK refuses must not stop the app at its first line; the checks still run and warn.
    logWarning(`register could not start the OpenTelemetry SDK, so nothing is exported: ${describeThrown(error)}`);
    return attached;
  }
  return { instrumentation, sdk, shutdown: flushOnExit(onceShutdown(sdk)) };
}

/**
 * start-sdk.ts, loaded (with the SDK packages) when they are installed, or
 * undefined after saying why the SDK cannot be started. `tracerOnly`: another
 * tool registered a tracer provider (Sentry's set-up), which gets the spans.
 * The versions are checked on the packages the load found (sdk-packages.ts);
 * a package missing, or one so far out of range that it fails to load, is
 * named as when each was looked up first.
 */
function loadSdkStarter(tracerOnly: boolean): typeof import('./start-sdk') | undefined {
  let starter: typeof import('./start-sdk') | undefined;
  let problem: string | undefined;
  try {
    // Loaded only now: the SDK packages are the app's to install (docs/register.md "Dependencies").
    starter = require('./start-sdk') as typeof import('./start-sdk');
    const loaded = require.cache[require.resolve('./start-sdk')];
    problem = loaded === undefined ? sdkProblem() : loadedSdkProblem(loaded);
  } catch (error) {
    problem = sdkProblem();
    if (problem === undefined) {
      logWarning(`register could not start the OpenTelemetry SDK, so nothing is exported: ${describeThrown(error)}`);
      return undefined;
    }
  }
  if (problem !== undefined) {
    const later = tracerOnly ? [] : laterSetups();
    logWarning(
      `register cannot start the OpenTelemetry SDK (${problem}), so ${tracerOnly ? 'the counters are' : 'nothing is'} exported` +
        (later.length > 0 ? ` unless ${later.join(' or ')} sets up OpenTelemetry later: its tracer provider then gets the spans` : '') +
        `. Install the SDK (${SDK_INSTALL_COMMAND}), or register one before this package.`,
    );
    return undefined;
  }
  if (!tracerOnly) {
    const warning = laterSetupWarning(laterSetups());
    if (warning !== undefined) logWarning(warning);
  }
  return starter;
}

function onceShutdown(sdk: NodeSDK): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () =>
    (done ??= new Promise<void>((resolve) => {
      // Not unref'd: at a signal, the flush must get its time before the signal is raised again.
      const bound = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
      sdk
        .shutdown()
        .catch((error: unknown) => logWarning(`telemetry shutdown failed: ${describeThrown(error)}`))
        .finally(() => {
          clearTimeout(bound);
          resolve();
        });
    }));
}
