// The fetch seam: `globalThis.fetch`, observed for POSTs to the model APIs
// the adapters know (Chat Completions, Responses, Anthropic Messages), which
// is how the AI SDK's providers (every version) and any other client without
// a hook of its own reach the model. It sees the body the provider was sent,
// after every middleware. The request and the response are never altered:
// the body is read from the string the caller passed, and the reply from a
// clone of the response. A request made by an SDK client the client hook
// checks is left to that hook, so it is counted once. A fetch seam cannot
// throw into the call safely, so strict mode is recorded as warn here.

import { checkModelRequest } from '../../request-path/check-request';
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
            () => observeReply(r, pending.format, (reply) => pending.pending.reply(reply.messages, reply.items)),
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
  const url = urlOf(input);
  if (url === undefined || !MODEL_PATH.test(url.pathname)) return undefined;
  if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || typeof init?.body !== 'string') return undefined;
  if (checkedByClientHook(url.pathname, new Headers(init.headers))) return undefined;
  const scope = currentCallScope();
  if (scope?.claimed) return undefined;
  const request = modelRequest(url.pathname, init.body);
  if (request === undefined) return undefined;
  if (scope) scope.seenBelow = true;
  const pending = checkModelRequest(request, {}, SEAM);
  return pending && request.replyFormat ? { pending, format: request.replyFormat } : undefined;
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

/**
 * Requests from the OpenAI and Anthropic SDKs carry their version (frameworks
 * built on them, the Agents SDK say, change the user agent but not that);
 * the API path says which SDK: a hooked copy of it checks them already.
 */
function checkedByClientHook(path: string, headers: Headers): boolean {
  const version = headers.get('x-stainless-package-version');
  if (version === null) return false;
  return isHookedClient(isAnthropicPath(path) ? ANTHROPIC_MODULE : OPENAI_MODULE, version);
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
