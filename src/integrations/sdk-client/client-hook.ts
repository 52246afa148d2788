// The seam the OpenAI and Anthropic SDK integrations share: their client
// class's `prepareOptions(options)`, a documented per-request hook, rather
// than `create`. Wrapping `create` would displace (or be displaced by) the
// OpenAI instrumentations users already run, and would have to preserve the
// SDKs' APIPromise. The seam runs once per attempt inside the call's context
// (the caller's span is active) with the final options. A throw from
// `prepareOptions` rejects the call as it is, one attempt, before any HTTP
// request.
//
// A request checked against a bound log is checked there. One with no log
// bound (the implicit log) is read there and checked at the client's byte
// seam, where the body is the string about to be sent: `openai`'s
// `prepareRequest` (6 and 7 hand a throw from there to the caller as it is,
// not retried) and an `@anthropic-ai/sdk` client middleware (its
// `backendMiddleware`, 1.x: a throw from a middleware reaches the caller as
// it is, where one from `prepareRequest` or `fetch` is wrapped as a
// connection error and retried). A client without that seam (Anthropic
// 0.x) is checked in `prepareOptions`, without the body.

import { moduleDefinition } from '../module-definition';
import { isSupportedVersion } from '../supported-version';
import { rewrap, unwrapIfWrapped, type Integration, type Patcher } from '../integration';
import type { ClientSeam } from '../provider';
import { providerOfBaseURL } from '../fetch/callers';
import type { PendingReply } from '../../request-path/reply';
import type { ModelRequest, ReplyFormat, SerialisedHead } from '../../request-path/model-request';
import { lazyPart } from '../../lazy-part';
import { sendAsClientRequest } from '../../request-path/call-scope';
import { reportInternalError } from '../../telemetry/internal-error';
import { warnOnce } from '../../warnings';
import { readableByReplyReader } from './node-fetch-response';
import { handToParse, takeParsedReplies } from './parsed-replies';
import type { RequestOptions } from './request-options';

/* eslint-disable @typescript-eslint/no-require-imports -- the request path loads at the first request, not at start-up (docs/performance.md "Cold start") */
const requestPath = lazyPart(
  'request-path/check-request',
  () => require('../../request-path/check-request') as typeof import('../../request-path/check-request'),
);
const replyReader = lazyPart('http/reply-reader', () => require('../http/reply-reader') as typeof import('../http/reply-reader'));
/* eslint-enable @typescript-eslint/no-require-imports */

type PrepareOptions = (this: unknown, options: RequestOptions) => unknown;
type RetryRequest = (this: unknown, options: RequestOptions, ...rest: unknown[]) => unknown;
type PrepareRequest = (this: unknown, request: unknown, context: { options?: unknown }) => unknown;
type BackendMiddleware = (this: unknown) => readonly unknown[];
type Next = (request: unknown) => Promise<unknown>;
type FetchWithTimeout = (this: unknown, url: unknown, init: unknown, ...rest: unknown[]) => Promise<unknown>;

/** Where an attempt's reply goes, and how to read it from the response. */
interface AwaitingReply {
  pending: PendingReply;
  format: ReplyFormat;
}

/**
 * The SDKs retry an attempt by passing the same options object back through
 * `retryRequest`: an attempt marked here is the same logical request and is
 * not checked (or counted) again. Reusing an options object for a new call
 * does not go through `retryRequest`, so it is checked as the new call it is.
 */
const retrying = new WeakSet<object>();
/** By options object (checked in `prepareOptions`) and by the request init built from it (`prepareRequest`). */
const awaitingByOptions = new WeakMap<object, AwaitingReply>();
const awaitingByInit = new WeakMap<object, AwaitingReply>();
/**
 * Requests with no log bound, waiting, by options object, for the byte seam
 * to check them with their body (read there, and only if the bytes do not
 * decide them). Taken by the first attempt's byte seam: a retry is not
 * checked again.
 */
const awaitingBytes = new WeakMap<object, ClientSeam>();

/**
 * The integration that hooks a provider's SDK client (providers.ts lists them): its module, patched at
 * `prepareOptions` when the require hook sees it load, or when the app hands it to `manuallyInstrument`.
 */
export function clientIntegration(seam: ClientSeam): Integration {
  return {
    name: seam.module,
    esmInclude: [seam.module],
    definitions: (patcher) => [clientDefinition(seam, patcher)],
    manual: {
      key: seam.manualKey,
      module: seam.module,
      clientClass: (value) => givenClient(seam, value),
      patch: (patcher, client) => patchClient(seam, patcher, client, undefined),
      unpatch: unpatchClient,
    },
  };
}

/** A module definition that hooks `seam`'s client. Every version is accepted, so one outside `range` is reported, not skipped silently. */
function clientDefinition(seam: ClientSeam, patcher: Patcher): ReturnType<typeof moduleDefinition> {
  return moduleDefinition(
    seam.module,
    ['*'],
    (exports: Record<string, unknown>, version?: string) => {
      if (isSupportedVersion(seam.module, version, seam.range, 'its requests are not checked')) {
        patchClient(seam, patcher, seam.clientOf(exports), version);
      }
      return exports;
    },
    (exports?: Record<string, unknown>) => {
      if (exports) unpatchClient(patcher, seam.clientOf(exports));
    },
  );
}

/**
 * The client class in a value given to `manuallyInstrument`: the module's
 * client (`clientOf`, as for the module the require hook sees), else the value
 * itself when it is such a class; undefined if neither has `prepareOptions`.
 */
function givenClient(seam: ClientSeam, value: object): object | undefined {
  const named = seam.clientOf(value as Record<string, unknown>);
  if (prototypeDefining(named, 'prepareOptions')) return named as object;
  return prototypeDefining(value, 'prepareOptions') ? value : undefined;
}

/** The seams a client may lack (`patchClient` gives each its wrapper). */
const OPTIONAL_METHODS = ['retryRequest', 'prepareRequest', 'fetchWithTimeout', 'parseResponseWithTimeout'] as const;
/** The methods the hook wraps, each on the prototype that defines it. */
const HOOKED_METHODS = ['prepareOptions', 'backendMiddleware', ...OPTIONAL_METHODS];

/**
 * The one place that patches an SDK client class, for the require hook and
 * for `manuallyInstrument` alike. Each method is re-wrapped on the prototype
 * that defines it (`rewrap`): a class patched again, by either way or by
 * another instance, still carries one wrapper, so each request is checked
 * once. `version` is the loaded package's, in the warning for a class with
 * no seam (a class given by hand was found by its seam, and its version
 * cannot be read: a bundle keeps no package.json).
 */
function patchClient(seam: ClientSeam, patcher: Patcher, client: unknown, version: string | undefined): void {
  const owner = prototypeDefining(client, 'prepareOptions');
  if (!owner) {
    warnOnce(`no-seam:${seam.module}@${version}`, `${seam.module} ${version} has no prepareOptions hook; its requests are not checked`);
    return;
  }
  const byteSeamOwner = prototypeDefining(client, seam.byteSeam);
  const bytesLater = byteSeamOwner !== undefined;
  rewrap(patcher, owner, 'prepareOptions', (original: PrepareOptions) => hookPrepareOptions(original, seam, bytesLater));
  if (byteSeamOwner && seam.byteSeam === 'backendMiddleware') rewrap(patcher, byteSeamOwner, 'backendMiddleware', addByteCheck);
  // Optional seams: without them retries are still told apart by the SDK's own retry path, and replies come from the next request.
  const wrappers: Record<(typeof OPTIONAL_METHODS)[number], (original: never) => unknown> = {
    retryRequest: markRetry,
    prepareRequest: seam.byteSeam === 'prepareRequest' ? checkPreparedRequest : linkRequestInit,
    fetchWithTimeout: readReplies,
    parseResponseWithTimeout: takeParsedReplies,
  };
  for (const method of OPTIONAL_METHODS) {
    const methodOwner = prototypeDefining(client, method);
    if (methodOwner) rewrap(patcher, methodOwner, method, wrappers[method]);
  }
}

function unpatchClient(patcher: Patcher, client: unknown): void {
  for (const method of HOOKED_METHODS) unwrapIfWrapped(patcher, prototypeDefining(client, method), method);
}

function markRetry(original: RetryRequest): RetryRequest {
  return function retryRequest(this: unknown, options, ...rest) {
    if (typeof options === 'object' && options !== null) retrying.add(options);
    return original.call(this, options, ...rest);
  };
}

/** `prepareRequest(init, { options })`: the init the reply will answer belongs to these options. */
function linkRequestInit(original: PrepareRequest): PrepareRequest {
  return function prepareRequest(this: unknown, request, context) {
    linkInit(request, context?.options);
    return original.call(this, request, context);
  };
}

function linkInit(init: unknown, options: unknown): void {
  const awaiting = typeof options === 'object' && options !== null ? awaitingByOptions.get(options) : undefined;
  if (awaiting && typeof init === 'object' && init !== null) awaitingByInit.set(init, awaiting);
}

/**
 * `openai`'s `prepareRequest(init, { options })`, the byte seam: after the
 * original (a subclass may still adjust the request), the request waiting
 * for these options is checked with `init.body`, the string to be sent.
 */
function checkPreparedRequest(original: PrepareRequest): PrepareRequest {
  return function prepareRequest(this: unknown, request, context) {
    const result = original.call(this, request, context);
    const check = (): void => {
      checkWithBody(context?.options, (request as { body?: unknown } | null)?.body);
      linkInit(request, context?.options);
    };
    if (result instanceof Promise) return result.then(check);
    check();
    return result;
  };
}

/** The middleware `addByteCheck` adds: checks the request waiting for this call's options with the body the chain carries. */
function byteCheckMiddleware(request: unknown, next: Next, context: { options?: unknown } | undefined): Promise<unknown> {
  checkWithBody(context?.options, (request as { body?: unknown } | null)?.body);
  return next(request);
}

/**
 * `@anthropic-ai/sdk`'s `backendMiddleware()`, the byte seam: the client's
 * own list, then the check, innermost but for the SDK's own `prepareRequest`.
 * A subclass that overrides it without calling it leaves the check to
 * `fetchWithTimeout` (see `readReplies`).
 */
function addByteCheck(original: BackendMiddleware): BackendMiddleware {
  return function backendMiddleware(this: unknown) {
    const list = original.call(this);
    return Array.isArray(list) ? [...(list as unknown[]), byteCheckMiddleware] : list;
  };
}

/**
 * `fetchWithTimeout(url, init, ms, controller, options?)`: sent as a
 * request this hook took (call-scope.ts: the fetch seam, of any copy of the
 * package, leaves it alone), and the response is returned as it is; the reply is taken from the client's own read of its body (a JSON
 * body whole with `text()` or `json()`, or the value `openai` 7's own parse returns, parsed-replies.ts; a stream of events from `body` as
 * the client reads it, so a stream it cancels is cancelled at once), or, for
 * a node-fetch stream of events (the SDKs that still use it), from a clone
 * that does not hold back the caller's branch.
 */
function readReplies(original: FetchWithTimeout): FetchWithTimeout {
  return function fetchWithTimeout(this: unknown, url, init, ...rest) {
    const options = typeof rest[2] === 'object' && rest[2] !== null ? rest[2] : undefined;
    const waiting = options !== undefined && awaitingBytes.has(options);
    if (waiting && !middlewareRuns(this)) checkWithBody(options, (init as { body?: unknown } | null)?.body);
    // A request checked at the middleware is checked inside the call below, so its reply is looked up when the response comes.
    const awaitingNow = (): AwaitingReply | undefined =>
      (typeof init === 'object' && init !== null ? awaitingByInit.get(init) : undefined) ??
      (options !== undefined ? awaitingByOptions.get(options) : undefined);
    const controller = rest[1] as { signal?: unknown } | null | undefined;
    const signal = typeof controller === 'object' && controller !== null ? controller.signal : undefined;
    const response = sendAsClientRequest(signal, () => original.call(this, url, init, ...rest));
    if (!waiting && awaitingNow() === undefined) return response;
    // The caller's own promise, returned as it is (no extra hop): this reaction
    // is registered first, so it runs before the caller's continuation reads the body.
    const observe = (value: unknown): void => {
      const awaiting = awaitingNow();
      if (awaiting === undefined) return;
      const parsed = replyReader().observeReplyFor(value, awaiting.format, awaiting.pending, readableByReplyReader);
      if (parsed !== undefined) handToParse(value, parsed);
    };
    if (response instanceof Promise) response.then(observe, () => {});
    else observe(response);
    return response;
  };
}

/**
 * Whether each client's `backendMiddleware()` list carries the byte check
 * (an overriding subclass may drop it), decided at its first request and
 * kept: the list is the client's own, so asking again on every request
 * would only build it again.
 */
const middlewareRunsFor = new WeakMap<object, boolean>();

function middlewareRuns(client: unknown): boolean {
  if (typeof client !== 'object' || client === null) return false;
  let runs = middlewareRunsFor.get(client);
  if (runs === undefined) {
    const list = (client as { backendMiddleware?: () => unknown }).backendMiddleware?.();
    runs = Array.isArray(list) && list.includes(byteCheckMiddleware);
    middlewareRunsFor.set(client, runs);
  }
  return runs;
}

/** Runs the original first (a subclass may still adjust the options), then reads (and, unless `bytesLater`, checks). */
function hookPrepareOptions(original: PrepareOptions, seam: ClientSeam, bytesLater: boolean): PrepareOptions {
  return function prepareOptions(this: unknown, options) {
    const result = original.call(this, options);
    const named = namedFor(this, seam);
    if (result instanceof Promise) return result.then(() => inspect(options, named, bytesLater));
    inspect(options, named, bytesLater);
    return result;
  };
}

const SEAM = { name: 'SDK client hook', mayThrow: true };

/**
 * One attempt's request, unless it retries an attempt already checked: read
 * and checked now when a log is bound (or the client has no byte seam),
 * else left for the byte seam (`checkWithBody`).
 */
function inspect(options: RequestOptions | undefined, seam: ClientSeam, bytesLater: boolean): void {
  if (typeof options !== 'object' || options === null) return;
  if (retrying.has(options)) {
    retrying.delete(options);
    return;
  }
  const route = requestPath().checkRoute();
  if (route === 'unchecked') return; // switched off: the request is not even read
  if (bytesLater && route === 'implicit') {
    awaitingBytes.set(options, seam);
    return;
  }
  const request = readRequest(options, seam);
  if (request !== undefined) awaitReply(options, request.replyFormat, requestPath().checkModelRequest(request, {}, SEAM));
}

/**
 * `seam` with its requests named for the provider the client's `baseURL`
 * serves (fetch/callers.ts decides, as for the fetch seam): an `openai`
 * client pointed at Groq is `groq`, not `openai`. Made, and `baseURL`
 * parsed, once per client and `baseURL` (kept while the client's `baseURL`
 * stays the same value), not per request.
 */
function namedFor(client: unknown, seam: ClientSeam): ClientSeam {
  let baseURL: unknown;
  try {
    baseURL = (client as { baseURL?: unknown } | null)?.baseURL;
  } catch {
    return seam;
  }
  const key = typeof client === 'object' && client !== null ? client : undefined;
  const known = key === undefined ? undefined : namedSeams.get(key);
  if (known !== undefined && known.seam === seam && known.baseURL === baseURL) return known.named;
  const hostProvider = providerOfBaseURL(baseURL);
  const rename = <T extends { provider: string | undefined }>(request: T | undefined): T | undefined => {
    if (request !== undefined && hostProvider !== undefined) request.provider = hostProvider;
    return request;
  };
  const named: ClientSeam = {
    ...seam,
    modelRequest: (options) => rename(seam.modelRequest(options)),
    serialised: (options, text) => rename(seam.serialised(options, text)),
  };
  if (key !== undefined) namedSeams.set(key, { seam, baseURL, named });
  return named;
}

/** Each client's named seam (`namedFor`), with the seam and `baseURL` it was made for. */
const namedSeams = new WeakMap<object, { seam: ClientSeam; baseURL: unknown; named: ClientSeam }>();

/** The model request `options` are, if they are one; a hostile options object is reported, not raised. */
function readRequest(options: RequestOptions, seam: ClientSeam): ModelRequest | undefined {
  try {
    return seam.modelRequest(options);
  } catch (error) {
    // The adapters never throw, so only a hostile options object gets here.
    reportInternalError(SEAM.name, error, 'the request went ahead unchecked');
    return undefined;
  }
}

/**
 * The byte seam: checks the request waiting for `options`, if any, with
 * `body` when it is the serialised string (the implicit log may decide it
 * from the bytes; else it is read from the options).
 */
function checkWithBody(options: unknown, body: unknown): void {
  if (typeof options !== 'object' || options === null) return;
  const seam = awaitingBytes.get(options);
  if (seam === undefined) return;
  awaitingBytes.delete(options);
  let head: SerialisedHead | undefined;
  try {
    head = typeof body === 'string' ? seam.serialised(options, body) : undefined;
  } catch (error) {
    reportInternalError(SEAM.name, error, 'the request went ahead unchecked');
    return;
  }
  if (head === undefined) {
    const request = readRequest(options, seam);
    if (request !== undefined) awaitReply(options, request.replyFormat, requestPath().checkModelRequest(request, {}, SEAM));
    return;
  }
  awaitReply(
    options,
    head.body.format,
    requestPath().checkSerialisedRequest(head, () => readRequest(options, seam), SEAM),
  );
}

function awaitReply(options: object, format: ReplyFormat | undefined, pending: PendingReply | undefined): void {
  if (pending && format) awaitingByOptions.set(options, { pending, format });
}

/** The prototype that defines `method`, so subclasses (Azure, Bedrock, Vertex, ...) are covered too. */
function prototypeDefining(client: unknown, method: string): Record<string, unknown> | undefined {
  if (typeof client !== 'function') return undefined;
  let proto: object | null = (client as { prototype: object }).prototype;
  while (proto && proto !== Object.prototype) {
    if (Object.prototype.hasOwnProperty.call(proto, method)) return proto as Record<string, unknown>;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return undefined;
}
