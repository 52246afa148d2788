// The members an OpenTelemetry `Instrumentation` has (what
// `registerInstrumentations` and NodeSDK call, and what users of contrib's
// instrumentations read), written here rather than inherited from
// `@opentelemetry/instrumentation`'s `InstrumentationAbstract`. That class
// is not exported by the package (it was reached by a deep import of
// `build/src/instrumentation`, which any minor release may move), and
// loading it took the package's `@opentelemetry/api-logs` and shimmer at
// start-up. Measured against pinning the dependency exactly and keeping the
// deep import, this is the lighter of the two (docs/performance.md "Cold
// start"): no module of `@opentelemetry/instrumentation` is loaded by
// `register` under `--require`, and the Logs API package only if a logger is
// asked of an instrumentation given no logger provider.

import { metrics, trace, type Meter, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { Instrumentation, InstrumentationConfig, InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { createRequire } from 'node:module';

type LoggerProvider = Parameters<NonNullable<Instrumentation['setLoggerProvider']>>[0];
type Logger = ReturnType<LoggerProvider['getLogger']>;

/** An `Instrumentation` with its config, providers, tracer, meter and logger; subclasses give `init`, `enable` and `disable`. */
export abstract class BaseInstrumentation<Config extends InstrumentationConfig> implements Instrumentation<Config> {
  protected _config: Config = {} as Config;
  private _tracer: Tracer;
  private _meter: Meter;
  private _logger: Logger | undefined;

  constructor(
    readonly instrumentationName: string,
    readonly instrumentationVersion: string,
    config: Config,
  ) {
    this.setConfig(config);
    this._tracer = trace.getTracer(instrumentationName, instrumentationVersion);
    this._meter = metrics.getMeter(instrumentationName, instrumentationVersion);
    this._updateMetricInstruments();
  }

  /** The modules it hooks. */
  protected abstract init(): InstrumentationModuleDefinition[];
  abstract enable(): void;
  abstract disable(): void;

  /** Called whenever the meter changes (at construction too, before the subclass's fields are set). */
  protected _updateMetricInstruments(): void {}

  /** The config, with `enabled` true unless it says false (first-level properties copied). */
  setConfig(config: Config): void {
    this._config = { enabled: true, ...config };
  }

  getConfig(): Config {
    return this._config;
  }

  setTracerProvider(tracerProvider: TracerProvider): void {
    this._tracer = tracerProvider.getTracer(this.instrumentationName, this.instrumentationVersion);
  }

  get tracer(): Tracer {
    return this._tracer;
  }

  setMeterProvider(meterProvider: MeterProvider): void {
    this._meter = meterProvider.getMeter(this.instrumentationName, this.instrumentationVersion);
    this._updateMetricInstruments();
  }

  get meter(): Meter {
    return this._meter;
  }

  setLoggerProvider(loggerProvider: LoggerProvider): void {
    this._logger = loggerProvider.getLogger(this.instrumentationName, this.instrumentationVersion);
  }

  /**
   * The logger of the provider given, else of `@opentelemetry/api-logs`'
   * global one. Taken at the first use, where `InstrumentationAbstract` took
   * it at construction: the Logs API hands a proxy that follows the global
   * provider once one is registered, so both log to the same place.
   */
  get logger(): Logger {
    return (this._logger ??= logsApi().getLogger(this.instrumentationName, this.instrumentationVersion));
  }

  /** The module definitions `init` gives (experimental in OpenTelemetry: for compile-time instrumentation). */
  getModuleDefinitions(): InstrumentationModuleDefinition[] {
    return this.init();
  }
}

/** `@opentelemetry/api-logs`, the copy `@opentelemetry/instrumentation` depends on (it is no dependency of this package). */
function logsApi(): { getLogger(name: string, version?: string): Logger } {
  const fromInstrumentation = createRequire(require.resolve('@opentelemetry/instrumentation'));
  return (fromInstrumentation('@opentelemetry/api-logs') as { logs: { getLogger(name: string, version?: string): Logger } }).logs;
}
