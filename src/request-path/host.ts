// The settings of the enabled instrumentation, as every request seam reads
// them: seams made outside it (the AI SDK middleware a user adds) and seams
// it owns (the SDK hooks, the channel subscribers) resolve the same way.

import { trace, type Tracer } from '@opentelemetry/api';
import type { Mode } from '../invariant/mode';
import { resolveMode } from '../reaction/resolve-mode';
import { booleanFromEnv } from '../environment';
import { captureContentFromEnv, contentCaptureOption, type ContentCaptureOption } from '../reaction/content-capture-option';
import { redactSecretsFromEnv } from '../telemetry/secret-shapes';
import { apiEventLogger, type EventLogger } from '../telemetry/evaluation-event';
import type { PreviewPolicy } from '../telemetry/previews';
import { instrumentsFromGlobal, type InvariantInstruments } from '../telemetry/instruments';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';

/**
 * Sends one Redis command, given as its words (`'HGET', key, field`), and
 * resolves with the reply: how an app hands the shared store a client the
 * package does not know, e.g. node-redis's `(...args) => client.sendCommand(args)`.
 * It must route the command to the node that holds its key when Redis is a
 * Cluster (the package's keys name one slot per conversation).
 */
export type RedisSendCommand = (...args: string[]) => Promise<unknown>;

/** A client with ioredis's `call`, as an ioredis `Redis` or `Cluster` has: the package sends its commands through it and never closes it. */
export interface RedisCallClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** The app's own Redis client for the shared store: its TLS, Sentinel, ACL user and pool stay the app's. */
export type RedisStoreClient = RedisCallClient | RedisSendCommand;

/** The implicit conversation log's settings (docs/behaviour.md §8.6, §8.7). */
export interface ImplicitLogOptions {
  /** Track conversations when no log is bound (default true; `NOUS_SESSION_INVARIANT_IMPLICIT=off` turns it off). */
  enabled?: boolean;
  /** Conversations kept at most; the least recently used goes first (default 1,000). */
  maxConversations?: number;
  /** A conversation unused this long is dropped (default 30 minutes); in a shared store, its records' expiry. */
  idleTimeoutMs?: number;
  /**
   * Where conversations are kept: `memory` (the default); a `redis://` /
   * `rediss://` URL of a Redis or Valkey that the app's processes share, or
   * `redis+cluster://host:port,host:port` for a Redis Cluster (the package
   * then needs `ioredis`); or the app's own client (`RedisStoreClient`: an
   * ioredis `Redis` or `Cluster`, or a function that sends one command).
   * docs/shared-store.md. Default: NOUS_SESSION_INVARIANT_STORE.
   */
  store?: string | RedisStoreClient;
  /** The shared store's key prefix; default NOUS_SESSION_INVARIANT_STORE_PREFIX, else the service name. */
  storePrefix?: string;
}

/** What the instrumentation's configuration contributes to a check. */
export interface HostSettings {
  mode?: Mode | undefined;
  agentName?: string | undefined;
  captureContent?: boolean | undefined;
  /** The redact hook and preview length for previews (content capture on). */
  previews?: PreviewPolicy | undefined;
  implicit?: ImplicitLogOptions | undefined;
  /** Take an Agents SDK input filter's output as a view of the log instead of checking it (docs/behaviour.md §5.5). */
  trustInputFilters?: boolean | undefined;
}

/**
 * The settings, tracer and counters a request seam uses: the enabled
 * instrumentation's, or, with none enabled, the global providers and no
 * configuration (`currentHost`).
 */
export interface RequestCheckHost {
  /**
   * The instrumentation's configuration as it applies to a check, asked per
   * request: the instrumentation resolves it (the environment included) once
   * per `enable()` or `setConfig()` and hands out the same object; with none
   * enabled, the environment's settings, read once (`environmentSettings`).
   * Every setting that has an environment variable is resolved here, so a
   * request reads none.
   */
  settings(): HostSettings;
  /** Starts the `nous.session.invariant check` span a violation goes on when the request has no span. */
  readonly tracer: Tracer;
  /** The counters the checks are recorded on. */
  readonly instruments: InvariantInstruments;
  /** Where the `gen_ai.evaluation.result` log events go; undefined: nowhere. */
  readonly eventLogger: EventLogger | undefined;
}

/** The configuration the settings are built from: the instrumentation's, or none (`settingsFrom`). */
export interface SettingsConfig extends ContentCaptureOption {
  mode?: Mode | undefined;
  agentName?: string | undefined;
  redact?: ((text: string) => string) | undefined;
  previewLength?: number | undefined;
  implicit?: ImplicitLogOptions | boolean | undefined;
  trustInputFilters?: boolean | undefined;
}

/**
 * The settings a check applies, each one `config` leaves out taken from its
 * environment variable (NOUS_SESSION_INVARIANT,
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
 * NOUS_SESSION_INVARIANT_REDACT_SECRETS, NOUS_SESSION_INVARIANT_IMPLICIT,
 * NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS). The one place that builds
 * them: the enabled instrumentation calls it with its config, and with none
 * enabled the request seams get it with none (`environmentSettings`), so the
 * two cannot drift apart. Each caller keeps what it returns: the environment
 * is not read per request.
 */
export function settingsFrom(config: SettingsConfig = {}): HostSettings {
  const implicit = config.implicit === false ? { enabled: false } : config.implicit === true ? { enabled: true } : config.implicit;
  return {
    mode: resolveMode(config.mode),
    agentName: config.agentName,
    captureContent: contentCaptureOption(config) ?? captureContentFromEnv(),
    previews: {
      redact: config.redact,
      previewLength: config.previewLength,
      redactSecrets: redactSecretsFromEnv(),
    },
    implicit: { ...implicit, enabled: implicit?.enabled ?? implicitLogFromEnv() },
    trustInputFilters: config.trustInputFilters ?? trustInputFiltersFromEnv(),
  };
}

/** Set to `true`: an OpenAI Agents SDK input filter's output is taken as a view of the log, unchecked. */
export const TRUST_INPUT_FILTERS_ENV_VAR = 'NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS';

/** Whether the environment asks to trust the Agents SDK's input filters (off by default): read here only. */
function trustInputFiltersFromEnv(): boolean {
  return booleanFromEnv(TRUST_INPUT_FILTERS_ENV_VAR, false, 'trusting input filters');
}

/** `NOUS_SESSION_INVARIANT_IMPLICIT=off` turns the implicit log off; bound sessions are still checked. */
export const IMPLICIT_ENV_VAR = 'NOUS_SESSION_INVARIANT_IMPLICIT';

/** Whether the environment leaves the implicit log on (the default) or turns it off: read here only. */
export function implicitLogFromEnv(env?: NodeJS.ProcessEnv): boolean {
  return booleanFromEnv(IMPLICIT_ENV_VAR, true, 'the implicit log', env);
}

let active: RequestCheckHost | undefined;
let fromEnvironment: HostSettings | undefined;

/** Called by the instrumentation's `enable()`; the last one enabled is the one in force. */
export function setHost(host: RequestCheckHost): void {
  active = host;
  fromEnvironment = undefined;
}

/** Called by `disable()`: seams fall back to the global providers and the environment (read again, once). */
export function clearHost(host: RequestCheckHost): void {
  if (active === host) active = undefined;
  fromEnvironment = undefined;
}

/**
 * The settings with no instrumentation enabled (a seam a user adds by hand,
 * such as the AI SDK middleware): `settingsFrom` with no config, each from
 * its environment variable, read at the first request after the process
 * started or the last instrumentation was disabled, then kept, as the
 * instrumentation keeps its own.
 */
function environmentSettings(): HostSettings {
  return (fromEnvironment ??= settingsFrom());
}

const globalHost: RequestCheckHost = {
  settings: environmentSettings,
  get tracer() {
    return trace.getTracer(PACKAGE_NAME, PACKAGE_VERSION);
  },
  get instruments() {
    return instrumentsFromGlobal();
  },
  get eventLogger() {
    return apiEventLogger();
  },
};

/** The enabled instrumentation, or the global providers with no configuration. */
export function currentHost(): RequestCheckHost {
  return active ?? globalHost;
}
