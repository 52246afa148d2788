// The fetch seam: `globalThis.fetch`, observed for POSTs to the model APIs
// of the provider registry (../providers.ts: Chat Completions, Responses,
// Anthropic Messages, Gemini generateContent, Ollama chat, Cohere v2 chat), which
// is how the AI SDK's providers (every version) and any other client without
// a hook of its own reach the model. It sees the body the provider was sent,
// after every middleware, however the call is made (a URL and init, a
// Request, or both: sent-request.ts). The request and the response are
// never altered: each member of the request it needs is read once and fetch
// sends that value (read-once.ts), a Request's body is read from a copy,
// and the reply is taken as the caller reads the response
// (http/reply-reader.ts). The body checked goes to the check as the string
// it is (`ModelRequest.body`). Whatever fetch returns is returned as it is
// (a request strict mode refuses never reaches fetch: below). One wrap per
// process (fetch-registry.ts), so each request passes one seam. A request
// made by an SDK client the client hook checks is left to that hook, so it
// is counted once: known by the abort signal the hooked
// client hands fetch (request-path/call-scope.ts, shared by every copy of the
// package), not by its headers, which an unhooked copy of the same SDK (a
// bundle's) sends too. Strict mode refuses a request here before it is
// sent, one attempt, and records nothing of it in the implicit log (the
// model never saw it): the call's promise rejects with the violation itself,
// which the AI SDK's providers hand to the caller as it is, not retried
// (they retry only their own retryable API errors); a Stainless client this
// seam checks (an unhooked copy or version, `together-ai`), which would
// retry a throw and wrap it as a connection error, gets a refusal response
// that names this package instead, and throws its own API error carrying
// it, not retried (refusal.ts).

import { checkModelRequest, checksRequests } from '../../request-path/check-request';
import type { PendingReply } from '../../request-path/reply';
import { currentCallScope, isClientAttempt } from '../../request-path/call-scope';
import type { ModelRequest, ReplyFormat } from '../../request-path/model-request';
import { SessionInvariantViolation } from '../../invariant/violation';
import { contained } from '../../telemetry/internal-error';
import { observeReplyFor } from '../http/reply-reader';
import type { WireFormat } from '../wire-format';
import { formatOfPath, mayBeModelURL as mayBeProviderURL } from '../providers';
import { STAINLESS_HEADER, refusal } from './refusal';
import { SentRequest } from './sent-request';
import { providerName, sdkOf } from './callers';
import { warnOnce } from '../../warnings';

type Fetch = typeof globalThis.fetch;

const SEAM = { name: 'fetch seam', mayThrow: true };
const isViolation = (error: unknown): boolean => error instanceof SessionInvariantViolation;

/** What the seam awaits from a checked request: the reply, read in this format. */
type Awaiting = { pending: PendingReply; format: ReplyFormat } | undefined;

/** One fetch call: checked if it is a model request, made with the values checked, its reply observed as the caller reads it. */
export function observeCall(fetch: Fetch, thisArg: unknown, args: unknown[]): unknown {
  // A hooked client's attempt (it runs claimed, call-scope.ts) or a call a seam above took: passed on as it came, nothing
  // read or built for it. The signal test in `inspect` covers a client that left the claimed scope (a fetch of its own).
  if (currentCallScope()?.claimed === true) return Reflect.apply(fetch, thisArg, args);
  const [input, init] = args;
  const sent = new SentRequest(input, init);
  let inspected: Inspected;
  try {
    inspected = contained(SEAM.name, () => inspect(input, sent), undefined, { passThrough: isViolation });
  } catch (violation) {
    // Strict mode: refused before it is sent; only the violation gets here (`passThrough`).
    return refused(violation as SessionInvariantViolation, sent);
  }
  const passed = args.length >= 2 ? contained(SEAM.name, () => sent.init.passOn(init), init) : init;
  const send = (awaiting: Awaiting): unknown => {
    const result: unknown = Reflect.apply(fetch, thisArg, passed === init ? args : [input, passed, ...args.slice(2)]);
    if (awaiting) observeResult(result, awaiting);
    return result;
  };
  if (inspected === undefined || !('later' in inspected)) return send(inspected);
  // A body the seam reads from a copy (a Request's): checked once read, and only then sent, so strict mode still refuses first.
  return inspected.later.then((text) => {
    let awaiting: Awaiting;
    try {
      awaiting = text === undefined ? undefined : check(inspected.ready, text);
    } catch (violation) {
      return refused(violation as SessionInvariantViolation, sent);
    }
    return send(awaiting);
  });
}

/** What the caller gets for a request strict mode refused (refusal.ts): a Stainless client's is answered, any other rejected. */
function refused(violation: SessionInvariantViolation, sent: SentRequest): Promise<Response> {
  return refusal(
    violation,
    contained(SEAM.name, () => sentHeader(sent, STAINLESS_HEADER) !== null, false),
  );
}

/** Hands the reply in `result` (what fetch returned) to the check, as the caller reads it. */
function observeResult(result: unknown, awaiting: NonNullable<Awaiting>): void {
  const observe = (response: unknown): void =>
    contained(SEAM.name, () => void observeReplyFor(response, awaiting.format, awaiting.pending), undefined);
  // Only a promise of the engine's own is followed (its `then` has no effects); any other result goes back untouched.
  // Registered before the caller gets the promise, so it runs before the caller reads the body.
  if (result instanceof Promise) result.then(observe, () => {});
  else observe(result);
}

/** A model request the seam checks, before its body is read. */
interface Ready {
  path: string;
  format: WireFormat;
  scope: ReturnType<typeof currentCallScope>;
  /** `gen_ai.provider.name` of the request, given the one its wire format names (callers.ts). */
  provider: (named: string | undefined) => string | undefined;
}

/** The outcome of inspecting a call: nothing to await, the reply awaited, or a body still to read before the check. */
type Inspected = Awaiting | { later: Promise<string | undefined>; ready: Ready };

function inspect(input: unknown, sent: SentRequest): Inspected {
  if (isClientAttempt(sent.init.get('signal'))) return undefined; // a client hook took it (the claimed scope was asked in observeCall)
  if (!mayBeModelURL(input)) return noteUnread(input, sent);
  const url = urlOf(input, sent);
  if (url === undefined) return undefined;
  const found = formatOfPath(url.pathname);
  if (found === undefined) return noteUnread(url, sent);
  const { format } = found;
  if (sent.method() !== 'POST') return undefined;
  const scope = currentCallScope();
  if (!checksRequests()) return undefined; // switched off: the body is not even read
  const body = sent.body();
  if (body === undefined) return undefined;
  const sdk = sdkOf((name) => sentHeader(sent, name));
  const ready: Ready = { path: url.pathname, format, scope, provider: (named) => providerName(url, sdk, named) };
  if ('later' in body) return { later: body.later, ready };
  return check(ready, body.text);
}

/** Checks the request `text` is, once its body is read; throws only strict mode's violation (contained otherwise). */
function check(ready: Ready, text: string): Awaiting {
  return contained(
    SEAM.name,
    () => {
      const request = modelRequest(ready.path, text, ready.format.request);
      if (request === undefined) return undefined;
      request.provider = ready.provider(request.provider);
      // The string sent, for the implicit log's byte record (docs/performance.md).
      request.body = { text, format: ready.format.name };
      if (ready.scope) ready.scope.seenBelow = true;
      const pending = checkModelRequest(request, {}, SEAM);
      return pending && request.replyFormat ? { pending, format: request.replyFormat } : undefined;
    },
    undefined,
    { passThrough: isViolation },
  );
}

/**
 * A call no wire format reads: when it is a POST from a known model SDK (by
 * its headers) to a path that may hold a conversation, one warning per SDK
 * says that its requests like this one are not checked, so that silence
 * means checked. Paths that never carry one (embeddings, files, models,
 * token counts, ...) are passed over.
 */
function noteUnread(input: unknown, sent: SentRequest): undefined {
  if (sent.method() !== 'POST') return undefined;
  const sdk = sdkOf((name) => sentHeader(sent, name));
  if (sdk === undefined) return undefined;
  const url = input instanceof URL ? input : urlOf(input, sent);
  if (url === undefined || NOT_A_CONVERSATION.test(url.pathname)) return undefined;
  warnOnce(
    `unread-sdk:${sdk.name}`,
    `${sdk.name} sent a request this package has no wire format for (POST ${url.pathname.slice(0, 200)}); its requests like it are not checked`,
  );
  return undefined;
}

/** Path segments of APIs that carry no conversation (embeddings, files, model lists, token counts, Ollama's model management). */
const NOT_A_CONVERSATION =
  /\/(embeddings?|embed|files|models|audio|images|moderations|rerank|tokenize|detokenize|classify|batches|uploads|fine[_-]?tuning|count_tokens|vector_stores|pull|push|show|copy|create|delete|ps|tags|version)(\/|$)/i;

/** The URL parser removes tabs and newlines, which could join a word a format looks for. */
const REMOVED_BY_PARSER = /[\t\n\r]/;

/** False for a string URL that cannot have a model path, so most fetches skip parsing it. */
function mayBeModelURL(input: unknown): boolean {
  return typeof input !== 'string' || REMOVED_BY_PARSER.test(input) || mayBeProviderURL(input);
}

function urlOf(input: unknown, sent: SentRequest): URL | undefined {
  try {
    if (typeof input === 'string') return new URL(input);
    if (input instanceof URL) return input;
    const url = sent.url();
    if (typeof url === 'string') return new URL(url);
  } catch {
    // a relative or malformed URL: not a model API
  }
  return undefined;
}

/** A header of the request as it is sent (`name` lower-case), or null. */
function sentHeader(sent: SentRequest, name: string): string | null {
  return headerOf(sent.headers() as RequestInit['headers'], name);
}

/**
 * `new Headers(headers).get(name)` (`name` lower-case), read in place for a
 * Headers instance, an array of pairs and a plain record: the same values,
 * joined by ", " and trimmed, without copying every header of every request.
 * Anything else, or an entry that is not a pair, is left to `Headers` itself.
 */
function headerOf(headers: RequestInit['headers'], name: string): string | null {
  if (headers === undefined || headers === null) return null;
  if (headers instanceof Headers) return headers.get(name);
  let values: string[] | undefined;
  if (Array.isArray(headers)) {
    for (const pair of headers as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2) return new Headers(headers).get(name);
      if (String(pair[0]).toLowerCase() === name) (values ??= []).push(trimHTTP(String(pair[1])));
    }
  } else if (isPlainRecord(headers)) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === name) (values ??= []).push(trimHTTP(String(headers[key])));
    }
  } else {
    return new Headers(headers).get(name);
  }
  return values === undefined ? null : values.join(', ');
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(value).length === 0;
}

/** Headers' own normalisation of a value: leading and trailing HTTP whitespace removed. */
function trimHTTP(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

/** The model request a POST of `text` to `path` is, read by its wire format's `read`. */
function modelRequest(path: string, text: string, read: WireFormat['request']): ModelRequest | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  return read(path, body as Record<string, unknown>);
}
