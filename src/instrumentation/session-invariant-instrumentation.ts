// SessionInvariantInstrumentation: checks every model request the supported
// SDKs and frameworks send against the session log, or, with none bound,
// against the conversation the package keeps itself.

import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { INTEGRATIONS } from '../integrations/index';
import { clearHost, setHost, settingsFrom, type HostSettings, type RequestCheckHost } from '../request-path/host';
import { apiEventLogger } from '../telemetry/evaluation-event';
import { createInstruments, type InvariantInstruments } from '../telemetry/instruments';
import { contained } from '../telemetry/internal-error';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';
import type { SessionInvariantInstrumentationConfig } from './config';
import type { ManualModules } from '../integrations/manual-modules';
import type { Patcher } from '../integrations/integration';
import { isWrapped, unwrap, wrap } from '../integrations/wrapping';
import { BaseInstrumentation } from './base-instrumentation';
import { ManualPatches } from './manual-patches';
import { moduleExportsPatcher, ModulePatches } from './module-patches';

/**
 * An OpenTelemetry instrumentation, used like any of contrib's: pass it to
 * `NodeSDK` (or `registerInstrumentations`), or let `register` do it.
 * `enable()` patches the SDK clients and starts the process-wide seams (the
 * AI SDK's telemetry channel, the fetch seam); `disable()` undoes both, so the
 * two ways of turning the package on behave the same.
 *
 * It is an `Instrumentation` as `@opentelemetry/instrumentation` defines it
 * (base-instrumentation.ts), but not an `InstrumentationBase`: that class
 * installs a require hook that
 * resolves every file any code requires, which costs more at a cold start
 * than this whole package is allowed. The SDK modules are hooked by the
 * package's own hook, which looks only at them (require-hook.ts).
 */
export class SessionInvariantInstrumentation extends BaseInstrumentation<SessionInvariantInstrumentationConfig> {
  // `declare`: the base constructor calls _updateMetricInstruments() before subclass field initializers would run.
  declare private _instruments: InvariantInstruments;
  declare private _patches: ModulePatches;
  declare private _stops: Array<() => void> | undefined;
  declare private _host: RequestCheckHost | undefined;
  declare private _ownLoggerProvider: boolean | undefined;
  declare private _settings: HostSettings | undefined;
  declare private _patcher: Patcher | undefined;
  declare private _manual: ManualPatches | undefined;

  /**
   * `config`: `mode`, `captureMessageContent`, `agentName`, `implicit`, `trustInputFilters` and the
   * standard `enabled`. Each setting is the fallback for requests that name
   * none (a call option, then the bound session, win; docs/behaviour.md §5.5,
   * §8.7). Like any of contrib's instrumentations, it enables itself unless `enabled`
   * is `false`.
   */
  constructor(config: SessionInvariantInstrumentationConfig = {}) {
    super(PACKAGE_NAME, PACKAGE_VERSION, config);
    this._patches = new ModulePatches(this.init());
    if (this._config.enabled) this.enable();
  }

  protected override _updateMetricInstruments(): void {
    this._instruments = createInstruments(this.meter);
  }

  /** Like contrib's: the given provider gets the `gen_ai.evaluation.result` log events, not the global one. */
  override setLoggerProvider(
    loggerProvider: Parameters<BaseInstrumentation<SessionInvariantInstrumentationConfig>['setLoggerProvider']>[0],
  ): void {
    super.setLoggerProvider(loggerProvider);
    this._ownLoggerProvider = true;
  }

  protected override init(): InstrumentationModuleDefinition[] {
    const patcher = this.patcher();
    return INTEGRATIONS.flatMap((integration) => integration.definitions(patcher));
  }

  /**
   * Patches SDK modules the require hook cannot see load: an SDK a bundler
   * inlined into the app (esbuild, webpack, a Next.js server build), or one
   * imported as an ES module with no `--import` loader hook. Give each as the
   * app holds it, the module (`import * as openai from 'openai'`,
   * `require('openai')`) or its client class (`import OpenAI from 'openai'`):
   *
   * ```ts
   * instrumentation.manuallyInstrument({ openai, anthropic });
   * ```
   *
   * Keys: `openai`, `anthropic` (`@anthropic-ai/sdk`), `groq` (`groq-sdk`),
   * `bedrock` (`@aws-sdk/client-bedrock-runtime`); SDKs that call `fetch`
   * need none. Each client class is patched where the require hook patches
   * it, by the same function, so one given twice, or also loaded through
   * the hook, is patched once and each request checked once. A value that
   * holds no client of its SDK, or an unknown key, is warned about once and
   * left alone. The version of a module given by hand cannot be read (a
   * bundle keeps no package.json), so it is not checked against the
   * supported range. While disabled, the modules are kept and patched at
   * `enable()`; `disable()` unpatches them.
   */
  manuallyInstrument(modules: ManualModules): void {
    (this._manual ??= new ManualPatches(() => this.patcher())).add(modules, this.isEnabled());
  }

  /** shimmer's wrap and unwrap, as contrib's instrumentations use them; shared by the require hook and `manuallyInstrument`. */
  private patcher(): Patcher {
    return (this._patcher ??= moduleExportsPatcher(wrap, unwrap, isWrapped));
  }

  /**
   * Patches the SDK clients, starts the process-wide seams (the AI SDK
   * telemetry channel, the fetch seam) if they are not running, and makes this
   * instrumentation's settings, tracer and counters the ones every seam uses;
   * the last one enabled is in force. Calling it again starts nothing twice.
   */
  override enable(): void {
    this._settings = undefined; // the environment is read again
    this._patches.enable();
    this._manual?.enable();
    setHost(this.host());
    if (this._stops !== undefined) return;
    this._stops = INTEGRATIONS.flatMap((integration) =>
      integration.start ? [contained(`starting ${integration.name}`, integration.start, () => {})] : [],
    );
  }

  /**
   * Undoes `enable()`: unpatches the clients, stops the process-wide seams and,
   * if this instrumentation is the one in force, lets the seams fall back to
   * the global providers and the environment.
   */
  override disable(): void {
    this._patches.disable();
    this._manual?.disable();
    if (this._host) clearHost(this._host);
    for (const stop of this._stops ?? []) contained('stopping an integration', stop, undefined);
    this._stops = undefined;
  }

  /** Whether the instrumentation is enabled (as `InstrumentationBase` says it). */
  isEnabled(): boolean {
    return this._patches.isEnabled();
  }

  /** Like any instrumentation's; the settings, and the environment they fall back to, are read again at the next request. */
  override setConfig(config: SessionInvariantInstrumentationConfig = {}): void {
    super.setConfig(config);
    this._settings = undefined;
  }

  /** This instrumentation as the request path sees it: its config, tracer and counters. */
  private host(): RequestCheckHost {
    if (this._host) return this._host;
    // The getters below are the host's, so `this` inside them is not the instrumentation.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const instrumentation = this;
    return (this._host = {
      settings: () => instrumentation.settings(),
      get tracer() {
        return instrumentation.tracer;
      },
      get instruments() {
        return instrumentation._instruments;
      },
      // A provider given to this instrumentation wins; else the global one in @opentelemetry/api (where current
      // SDKs register), else the base class's logger, which reads @opentelemetry/api-logs' global (older SDKs).
      get eventLogger() {
        return (instrumentation._ownLoggerProvider ? undefined : apiEventLogger()) ?? instrumentation.logger;
      },
    });
  }

  /**
   * The config as a check applies it, each setting the config leaves out
   * taken from the environment (`settingsFrom`, which also builds the
   * settings seams use with no instrumentation enabled). Resolved at the first request after `enable()` or `setConfig()`, then
   * kept: `process.env` is not read per request (each read is a call into
   * the runtime). An environment variable changed later takes effect at the
   * next `enable()` or `setConfig()` (docs/behaviour.md §5.4).
   */
  private settings(): HostSettings {
    return (this._settings ??= settingsFrom(this.getConfig()));
  }
}
