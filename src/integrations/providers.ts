// The provider registry: the one list to extend when adding a model provider,
// and the one place that says which SDK and which wire format a request path
// belongs to. Each entry (its folder's provider.ts) gives its SDK client hook,
// if any, and its wire formats. The instrumentation hooks the clients listed
// here (index.ts); the fetch seam and the reply reader (http/) go through the
// wire formats. A provider whose client calls `globalThis.fetch` is one
// folder and one entry here, with no hook.

import type { ReplyFormat } from '../request-path/model-request';
import type { Reply, ReplyAssembler } from './http/reply-assemblers';
import type { ClientSeam, Provider } from './provider';
import type { Integration } from './integration';
import type { WireFormat } from './wire-format';
import { anthropicProvider } from './anthropic/provider';
import { bedrockProvider } from './bedrock/provider';
import { cohereProvider } from './cohere/provider';
import { geminiProvider } from './gemini/provider';
import { groqProvider } from './groq/provider';
import { ollamaProvider } from './ollama/provider';
import { openaiProvider } from './openai/provider';

/** Every model provider. */
export const PROVIDERS: readonly Provider[] = [
  openaiProvider,
  anthropicProvider,
  geminiProvider,
  groqProvider,
  ollamaProvider,
  bedrockProvider,
  cohereProvider,
];

/** A wire format and the provider it belongs to. */
export interface ProviderFormat {
  provider: Provider;
  format: WireFormat;
}

const FORMATS: readonly ProviderFormat[] = PROVIDERS.flatMap((provider) => provider.wireFormats.map((format) => ({ provider, format })));

/** The wire format (and its provider) whose model path `path` is, if any. */
export function formatOfPath(path: string): ProviderFormat | undefined {
  return FORMATS.find(({ format }) => format.isModelPath(path));
}

/** False when `url` cannot name a model path of any provider (a cheap test before parsing it). */
export function mayBeModelURL(url: string): boolean {
  return FORMATS.some(({ format }) => format.mayBeModelURL(url));
}

/** The SDK clients the providers are checked at first, each hooked by the instrumentation (index.ts). */
export const CLIENT_SEAMS: readonly ClientSeam[] = PROVIDERS.flatMap((provider) =>
  provider.client === undefined ? [] : [provider.client],
);

/** The providers' hooks of their own (an SDK hooked neither at the fetch seam nor as a Stainless client), enabled by the instrumentation (index.ts). */
export const PROVIDER_HOOKS: readonly Integration[] = PROVIDERS.flatMap((provider) => (provider.hook === undefined ? [] : [provider.hook]));

/** The listed wire format named `name`, if any. */
function wireFormatNamed(name: ReplyFormat): WireFormat | undefined {
  return FORMATS.find(({ format }) => format.name === name)?.format;
}

/** The reply in a JSON response body of `format`. */
export function replyFromBody(format: ReplyFormat, body: unknown): Reply | undefined {
  return wireFormatNamed(format)?.replyFromBody(body);
}

/**
 * A fresh assembler for one reply of `format` streamed (server-sent events,
 * or NDJSON lines): it collects the events and, once the stream has ended, builds the
 * reply they amount to (docs/behaviour.md §8.4). An unknown format reads no reply.
 */
export function replyAssembler(format: ReplyFormat): ReplyAssembler {
  return wireFormatNamed(format)?.assembler() ?? { event: () => {}, reply: () => undefined };
}
