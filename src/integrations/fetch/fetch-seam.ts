// The fetch seam: `globalThis.fetch`, observed for POSTs to the model APIs
// the adapters know (Chat Completions, Responses, Anthropic Messages), which
// is how the AI SDK's providers (every version) and any other client without
// a hook of its own reach the model. It sees the body the provider was sent,
// after every middleware. The request and the response are never altered:
// the body is read from the string the caller passed, and the reply from a
// clone of the response. A request made by an SDK client the client hook
// checks is left to that hook, so it is counted once. A fetch seam cannot
// throw into the call safely, so strict mode is recorded as warn here.

import { checkModelRequest, checksRequests } from '../../request-path/check-request';
import { currentCallScope } from '../../request-path/call-scope';
import type { ModelRequest } from '../../request-path/model-request';
import { contained } from '../../telemetry/internal-error';
import { anthropicBodyRequest } from '../anthropic/model-request';
import { ANTHROPIC_MODULE } from '../anthropic/integration';
import { openAIBodyRequest } from '../openai/model-request';
import { OPENAI_MODULE } from '../openai/integration';
import { isHookedClient } from '../sdk-client/client-hook';
import { observeReply } from '../http/reply-reader';

type Fetch = typeof globalThis.fetch;

const SEAM = { name: 'fetch seam', mayThrow: false };
const MODEL_PATH = /\/(chat\/completions|responses|messages)$/;

/** Wraps `globalThis.fetch`; returns what restores it (or leaves a pass-through, when another tool wrapped it since). */
export function observeFetch(): () => void {
  const original = globalThis.fetch;
  if (typeof original !== 'function') return () => {};
  let active = true;
  const observed: Fetch = function fetch(this: unknown, input, init) {
    const pending = active ? contained(SEAM.name, () => inspect(input, init), undefined) : undefined;
    const response = original.call(this, input, init);
    if (pending) {
      void response.then(
        (r) =>
          contained(
            SEAM.name,
            () => observeReply(r, pending.format, (reply) => pending.pending.reply(reply.messages, reply.items, reply)),
            undefined,
          ),
        () => {},
      );
    }
    return response;
  };
  globalThis.fetch = observed;
  return () => {
    active = false;
    if (globalThis.fetch === observed) globalThis.fetch = original;
  };
}

function inspect(input: unknown, init: RequestInit | undefined) {
  if (!mayBeModelURL(input)) return undefined;
  const url = urlOf(input);
  if (url === undefined || !MODEL_PATH.test(url.pathname)) return undefined;
  if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || typeof init?.body !== 'string') return undefined;
  if (checkedByClientHook(url.pathname, init.headers)) return undefined;
  const scope = currentCallScope();
  if (scope?.claimed) return undefined;
  if (!checksRequests()) return undefined; // switched off: the body is not even parsed
  const request = modelRequest(url.pathname, init.body);
  if (request === undefined) return undefined;
  if (scope) scope.seenBelow = true;
  const pending = checkModelRequest(request, {}, SEAM);
  return pending && request.replyFormat ? { pending, format: request.replyFormat } : undefined;
}

/** A model path ends with one of these words; the URL parser removes tabs and newlines, which could join one. */
const MODEL_WORD = /completions|responses|messages|[\t\n\r]/;

/** False for a string URL that cannot have a model path, so most fetches skip parsing it. */
function mayBeModelURL(input: unknown): boolean {
  return typeof input !== 'string' || MODEL_WORD.test(input);
}

function urlOf(input: unknown): URL | undefined {
  try {
    if (typeof input === 'string') return new URL(input);
    if (input instanceof URL) return input;
    if (typeof input === 'object' && input !== null && typeof (input as { url?: unknown }).url === 'string')
      return new URL((input as { url: string }).url);
  } catch {
    // a relative or malformed URL: not a model API
  }
  return undefined;
}

const VERSION_HEADER = 'x-stainless-package-version';

/**
 * Requests from the OpenAI and Anthropic SDKs carry their version (frameworks
 * built on them, the Agents SDK say, change the user agent but not that);
 * the API path says which SDK: a hooked copy of it checks them already.
 */
function checkedByClientHook(path: string, headers: RequestInit['headers']): boolean {
  const version = headerOf(headers, VERSION_HEADER);
  if (version === null) return false;
  return isHookedClient(isAnthropicPath(path) ? ANTHROPIC_MODULE : OPENAI_MODULE, version);
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

function isAnthropicPath(path: string): boolean {
  return path.endsWith('/messages');
}

function modelRequest(path: string, text: string): ModelRequest | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  return isAnthropicPath(path) ? anthropicBodyRequest(path, record) : openAIBodyRequest(path, record);
}
