// The Bedrock Runtime client (`@aws-sdk/client-bedrock-runtime`) sends over
// node:http2 through its smithy request handler, not `globalThis.fetch`, so
// the fetch seam never sees it. It is hooked where the AWS SDK lets code in:
// its middleware stack. `BedrockRuntimeClient.prototype.send` is wrapped only
// to add one middleware to each client's own stack before its first command
// (`middlewareStack.add`, the SDK's documented extension point); the
// middleware, at the `initialize` step, sees each command's input before it
// is serialised and its output once deserialised. It acts on Converse and
// ConverseStream only (converse-check.ts, loaded at the first of them).

import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { moduleDefinition } from '../module-definition';
import type { Integration, Patcher } from '../integration';
import { isSupportedVersion } from '../supported-version';
import { SUPPORTED_VERSIONS } from '../supported-versions';
import { lazyPart } from '../../lazy-part';
import { reportInternalError } from '../../telemetry/internal-error';
import { warnOnce } from '../../warnings';

/** The npm package hooked; also its name in warnings and its ESM loader hook entry. */
export const BEDROCK_MODULE = '@aws-sdk/client-bedrock-runtime';

type ConverseCheck = typeof import('./converse-check');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at the first Converse request, not at start-up
const converseCheck = lazyPart('bedrock/converse-check', () => require('./converse-check') as ConverseCheck);

type Send = (this: unknown, command: unknown, ...rest: unknown[]) => unknown;
type Handler = (args: { input?: unknown }) => Promise<{ output?: unknown }>;
type Middleware = (next: Handler, context: { commandName?: unknown }) => Handler;
interface MiddlewareStack {
  add(middleware: Middleware, options: { step: 'initialize'; name: string; override: boolean }): void;
}

/** The commands that send a conversation: Converse and its streamed form (the smithy context's `commandName`). */
const CONVERSE_COMMANDS: ReadonlySet<unknown> = new Set(['ConverseCommand', 'ConverseStreamCommand']);

/**
 * The commands that carry a conversation in a body of the model's own format
 * (InvokeModel and its streams), which no reader here reads: each is named
 * once in a warning, so that silence means checked.
 */
const UNREAD_COMMANDS: ReadonlySet<unknown> = new Set([
  'InvokeModelCommand',
  'InvokeModelWithResponseStreamCommand',
  'InvokeModelWithBidirectionalStreamCommand',
]);

/** The middleware's name in each client's stack (`override`: a second instrumentation copy replaces it, never adds a second). */
const MIDDLEWARE_NAME = 'nousSessionInvariantConverse';

/** Clients whose stack carries the middleware. */
const hooked = new WeakSet<object>();

/** The integration that hooks the Bedrock Runtime client (providers.ts lists it with the Bedrock provider), when the require hook sees it load or the app hands it to `manuallyInstrument`. */
export const bedrockIntegration: Integration = {
  name: BEDROCK_MODULE,
  esmInclude: [BEDROCK_MODULE],
  definitions: (patcher) => [bedrockDefinition(patcher)],
  manual: {
    key: 'bedrock',
    module: BEDROCK_MODULE,
    clientClass: givenClient,
    patch: (patcher, client) => patchSend(patcher, classPrototype(client)),
    unpatch: (patcher, client) => unpatchSend(patcher, classPrototype(client)),
  },
};

/** Every version is accepted, so one outside the range is reported, not skipped silently. */
function bedrockDefinition(patcher: Patcher): InstrumentationModuleDefinition {
  return moduleDefinition(
    BEDROCK_MODULE,
    ['*'],
    (exports: Record<string, unknown>, version?: string) => {
      if (!isSupportedVersion(BEDROCK_MODULE, version, SUPPORTED_VERSIONS.bedrock.range, 'its requests are not checked')) return exports;
      const proto = clientPrototype(exports);
      if (proto !== undefined) patchSend(patcher, proto);
      return exports;
    },
    (exports?: Record<string, unknown>) => unpatchSend(patcher, exports === undefined ? undefined : clientPrototype(exports)),
  );
}

/**
 * The one place that patches the client class, for the require hook and for
 * `manuallyInstrument` alike: `send` wrapped on its prototype, a previous
 * wrap of ours undone first, so a class patched again (either way, or by
 * another instance) carries one wrapper.
 */
function patchSend(patcher: Patcher, proto: Record<string, unknown> | undefined): void {
  if (proto === undefined) return;
  unpatchSend(patcher, proto);
  patcher.wrap(proto, 'send', addMiddlewareFirst);
}

/** `send` is smithy's Client's, inherited: only a wrap of our own on this prototype is undone, never another's on smithy's. */
function unpatchSend(patcher: Patcher, proto: Record<string, unknown> | undefined): void {
  if (proto !== undefined && Object.prototype.hasOwnProperty.call(proto, 'send') && patcher.isWrapped(proto.send))
    patcher.unwrap(proto, 'send');
}

/** The client class in a value given to `manuallyInstrument`: the module's `BedrockRuntimeClient`, else the value itself when it is a client class with `send`. */
function givenClient(value: object): object | undefined {
  const named = (value as Record<string, unknown>).BedrockRuntimeClient;
  if (classPrototype(named)) return named as object;
  return classPrototype(value) ? value : undefined;
}

function clientPrototype(exports: Record<string, unknown>): Record<string, unknown> | undefined {
  return classPrototype(exports.BedrockRuntimeClient);
}

/** The prototype of a client class with `send` (the class given by hand, or the module's `BedrockRuntimeClient`). */
function classPrototype(client: unknown): Record<string, unknown> | undefined {
  if (typeof client !== 'function') return undefined;
  const proto = (client as { prototype?: Record<string, unknown> }).prototype;
  return typeof proto?.send === 'function' ? proto : undefined;
}

/** `send(command, ...)`: the client's stack gets the middleware before its first command; the call goes on as it was. */
function addMiddlewareFirst(original: Send): Send {
  return function send(this: unknown, command, ...rest) {
    if (typeof this === 'object' && this !== null && !hooked.has(this)) addMiddleware(this);
    return original.call(this, command, ...rest);
  };
}

function addMiddleware(client: object): void {
  hooked.add(client);
  try {
    const stack = (client as { middlewareStack?: Partial<MiddlewareStack> }).middlewareStack;
    if (typeof stack?.add !== 'function') return;
    stack.add(converseMiddleware, { step: 'initialize', name: MIDDLEWARE_NAME, override: true });
  } catch (error) {
    reportInternalError('Bedrock client hook', error, "the client's Converse requests are not checked");
  }
}

/**
 * Checks a Converse or ConverseStream command's input, then hands its output
 * on as it came (a stream's events observed as the caller reads them).
 * Other commands pass through untouched; InvokeModel's are named once in a
 * warning.
 */
const converseMiddleware: Middleware = (next, context) => {
  if (UNREAD_COMMANDS.has(context.commandName)) {
    const command = String(context.commandName);
    warnOnce(
      `unread-sdk:${BEDROCK_MODULE}:${command}`,
      `${BEDROCK_MODULE} sent a ${command}, which this package does not read; its requests are not checked (Converse and ConverseStream are)`,
    );
    return next;
  }
  if (!CONVERSE_COMMANDS.has(context.commandName)) return next;
  return async (args) => {
    const { checkConverse, observeConverse } = converseCheck();
    const pending = checkConverse(args.input);
    const result = await next(args);
    if (pending !== undefined) await observeConverse(result.output, pending);
    return result;
  };
};
