// SessionInvariantInstrumentation: checks every model request the OpenAI and
// Anthropic SDKs send against the session log bound with `withSession`.
//
// It hooks a documented per-request seam of the SDKs' client class,
// `prepareOptions(options)`, rather than `create`: wrapping `create` would
// displace (or be displaced by) the OpenAI instrumentations users already run,
// and would have to preserve the SDKs' APIPromise. The seam runs once per
// attempt inside the call's context (so the caller's span is active), with
// the final options: method, path and the body about to be serialized. Its
// sibling `prepareRequest` runs later, inside Anthropic's fetch path, where a
// throw is wrapped as a connection error and retried; a throw from
// `prepareOptions` rejects the call as it is, before any HTTP request.

import { trace } from '@opentelemetry/api';
import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
  isWrapped,
} from '@opentelemetry/instrumentation';
import { reportInternalError } from '../internal-error';
import { warnOnce } from '../logger';
import { resolveMode, type Mode } from '../mode';
import { getActiveSession } from '../session-context';
import { createInstruments, startModelRequestSpan, type InvariantInstruments } from '../telemetry';
import { SessionInvariantViolation } from '../violation';
import { verifyRequest } from '../verify';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';
import { anthropicModelRequest, openAIModelRequest, type ModelRequest, type RequestOptions } from './requests';
import { wrapGetResponse, wrapGetStreamed } from '../openai-agents/patch-model-retry';
import { AGENTS_CORE_MODULE, ANTHROPIC_MODULE, OPENAI_MODULE, SUPPORTED_VERSIONS, isSupportedVersion } from './supported';
import type { SessionInvariantInstrumentationConfig } from './types';

type PrepareOptions = (this: unknown, options: RequestOptions) => unknown;
type Extractor = (options: RequestOptions | undefined) => ModelRequest | undefined;

interface ModelRetryModule {
  getResponseWithRetry?: unknown;
  getStreamedResponseWithRetry?: unknown;
}

const MODEL_RETRY_WRAPPERS = [
  ['getResponseWithRetry', wrapGetResponse],
  ['getStreamedResponseWithRetry', wrapGetStreamed],
] as const;

interface ClientModule {
  OpenAI?: unknown;
  Anthropic?: unknown;
  default?: unknown;
}

export class SessionInvariantInstrumentation extends InstrumentationBase<SessionInvariantInstrumentationConfig> {
  // `declare`: the base constructor calls _updateMetricInstruments() and init()
  // before subclass fields would be initialized; these must not be reset after it.
  declare private _instruments: InvariantInstruments;
  declare private _mode: Mode;
  /** Options objects already checked: a retried attempt is the same logical request. */
  declare private _seen: WeakSet<object>;

  constructor(config: SessionInvariantInstrumentationConfig = {}) {
    super(PACKAGE_NAME, PACKAGE_VERSION, config);
    this._mode = resolveMode(config.mode);
  }

  override setConfig(config: SessionInvariantInstrumentationConfig = {}): void {
    super.setConfig(config);
    this._mode = resolveMode(config.mode);
  }

  protected override _updateMetricInstruments(): void {
    this._instruments = createInstruments(this.meter);
  }

  protected override init(): InstrumentationNodeModuleDefinition[] {
    return [
      this.moduleDefinition(OPENAI_MODULE, (exports) => exports.OpenAI ?? exports.default, openAIModelRequest),
      this.moduleDefinition(ANTHROPIC_MODULE, (exports) => exports.Anthropic ?? exports.default, anthropicModelRequest),
      this.agentsDefinition(),
    ];
  }

  /** The Agents SDK runner's model call, for the turn recorder (see openai-agents/turn-recorder). */
  private agentsDefinition(): InstrumentationNodeModuleDefinition {
    const range = SUPPORTED_VERSIONS[AGENTS_CORE_MODULE]!;
    // File hooks name the file with its package, in both the CommonJS and the ESM copy.
    const files = ['js', 'mjs'].map(
      (extension) =>
        new InstrumentationNodeModuleFile(
          `${AGENTS_CORE_MODULE}/dist/runner/modelRetry.${extension}`,
          [range],
          (exports: ModelRetryModule) => {
            for (const [name, wrap] of MODEL_RETRY_WRAPPERS) {
              if (typeof exports[name] !== 'function') continue;
              if (isWrapped(exports[name])) this._unwrap(exports, name);
              this._wrap(exports, name, wrap as never);
            }
            return exports;
          },
          (exports?: ModelRetryModule) => {
            for (const [name] of MODEL_RETRY_WRAPPERS) if (exports && isWrapped(exports[name])) this._unwrap(exports, name);
          },
        ),
    );
    return new InstrumentationNodeModuleDefinition(
      AGENTS_CORE_MODULE,
      ['*'],
      (exports: unknown, version?: string) => {
        isSupportedVersion(AGENTS_CORE_MODULE, version, 'its turns are not recorded into the log');
        return exports;
      },
      undefined,
      files,
    );
  }

  /** Accepts every version, so that one outside the supported range is reported rather than silently skipped. */
  private moduleDefinition(name: string, clientOf: (exports: ClientModule) => unknown, extract: Extractor) {
    return new InstrumentationNodeModuleDefinition(
      name,
      ['*'],
      (exports: ClientModule, version?: string) => {
        if (!isSupportedVersion(name, version, 'its requests are not checked')) return exports;
        const owner = seamOwner(clientOf(exports));
        if (!owner) {
          warnOnce(`no-seam:${name}@${version}`, `${name} ${version} has no prepareOptions hook; its requests are not checked`);
          return exports;
        }
        if (isWrapped(owner.prepareOptions)) this._unwrap(owner, 'prepareOptions');
        this._wrap(owner, 'prepareOptions', (original) => this.hookPrepareOptions(original as PrepareOptions, extract));
        return exports;
      },
      (exports?: ClientModule) => {
        const owner = exports ? seamOwner(clientOf(exports)) : undefined;
        if (owner && isWrapped(owner.prepareOptions)) this._unwrap(owner, 'prepareOptions');
      },
    );
  }

  /** Runs the original first (a subclass may still adjust the options), then checks. */
  private hookPrepareOptions(original: PrepareOptions, extract: Extractor): PrepareOptions {
    const instrumentation = this;
    return function prepareOptions(this: unknown, options) {
      const result = original.apply(this, [options]);
      if (result instanceof Promise) return result.then(() => instrumentation.inspect(options, extract));
      instrumentation.inspect(options, extract);
      return result;
    } as PrepareOptions;
  }

  /** Checks one request. Throws only SessionInvariantViolation (strict mode, test environment). */
  private inspect(options: RequestOptions | undefined, extract: Extractor): void {
    try {
      const session = getActiveSession();
      if (session === undefined) return;
      const mode = session.mode ?? this._mode;
      if (mode === 'off' || typeof options !== 'object' || options === null) return;
      if (!this._seen) this._seen = new WeakSet();
      if (this._seen.has(options)) return;
      const request = extract(options);
      if (request === undefined) return;
      this._seen.add(options);
      if (request.stateful !== undefined) {
        warnOnce(`stateful:${request.provider}`, `requests that use ${request.stateful} keep the conversation on the provider's side; they are not checked`);
        return;
      }
      const config = this.getConfig();
      const span = trace.getActiveSpan();
      verifyRequest(
        session.log,
        request.messages as readonly unknown[],
        {
          mode,
          agentName: session.agentName ?? config.agentName,
          provider: request.provider,
          captureContent: config.captureContent,
          instruments: this._instruments,
          ...(span ? { span } : {}),
        },
        () => startModelRequestSpan(this.tracer, request),
      );
    } catch (error) {
      if (error instanceof SessionInvariantViolation) throw error;
      reportInternalError('prepareOptions hook', error, this._instruments);
    }
  }

}

/** The prototype that defines `prepareOptions`, so subclasses (Azure, Bedrock, ...) are covered too. */
function seamOwner(client: unknown): { prepareOptions: PrepareOptions } | undefined {
  if (typeof client !== 'function') return undefined;
  let proto: object | null = (client as { prototype: object }).prototype;
  while (proto && proto !== Object.prototype) {
    if (Object.prototype.hasOwnProperty.call(proto, 'prepareOptions')) return proto as { prepareOptions: PrepareOptions };
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return undefined;
}
