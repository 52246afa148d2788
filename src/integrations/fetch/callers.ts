// Who a fetch call is from and to: the model SDK that made it (by the
// headers each SDK sends on every request) and the provider it calls (by the
// host, else the SDK). The one place that decides `gen_ai.provider.name`
// for a request the fetch seam checks: a wire format says only which API the
// body speaks, and many providers speak OpenAI's (docs/behaviour.md §8.5).
// The names are the OpenTelemetry GenAI conventions' values where they give
// one (`openai`, `groq`, `mistral_ai`, `deepseek`, `x_ai`, `perplexity`,
// `cohere`, `azure.ai.openai`, `gcp.gemini`, `gcp.vertex_ai`, ...), and the
// provider's own short name where they give none (`together_ai`,
// `openrouter`, `ollama`, `fireworks`).

/** A model SDK as its requests show it. */
interface KnownSDK {
  /** The npm package, as warnings name it. */
  name: string;
  /** `gen_ai.provider.name` of the one provider it calls, if it calls one. */
  provider?: string;
  /** Whether a request's headers are this SDK's (`header(name)`: the value of a lower-case header name, or null). */
  sent(header: (name: string) => string | null): boolean;
}

const userAgent = (pattern: RegExp) => (header: (name: string) => string | null) => pattern.test(header('user-agent') ?? '');

/** The AI SDK's providers add `ai-sdk/{provider}/{version}` to the user agent: the provider package, and who it calls. */
const AI_SDK_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  'google-vertex': 'gcp.vertex_ai',
  azure: 'azure.ai.openai',
  mistral: 'mistral_ai',
  groq: 'groq',
  deepseek: 'deepseek',
  xai: 'x_ai',
  perplexity: 'perplexity',
  cohere: 'cohere',
  togetherai: 'together_ai',
  fireworks: 'fireworks',
  'amazon-bedrock': 'aws.bedrock',
};

/** Model SDKs whose requests reach `globalThis.fetch`, most specific first. */
const SDKS: readonly KnownSDK[] = [
  { name: 'openai', provider: 'openai', sent: userAgent(/^OpenAI\/JS /) },
  { name: '@anthropic-ai/sdk', provider: 'anthropic', sent: userAgent(/^Anthropic\/JS /) },
  { name: 'groq-sdk', provider: 'groq', sent: userAgent(/^Groq\/JS /) },
  { name: 'together-ai', provider: 'together_ai', sent: userAgent(/^Together\/JS /) },
  {
    name: '@mistralai/mistralai',
    provider: 'mistral_ai',
    sent: userAgent(/^mistral-client-typescript\/|^speakeasy-sdk\/typescript .* @mistralai\/mistralai$/),
  },
  { name: 'cohere-ai', provider: 'cohere', sent: (header) => header('x-fern-sdk-name') === 'cohere-ai' },
  { name: 'ollama', provider: 'ollama', sent: userAgent(/^ollama-js\//) },
  { name: '@google/genai', sent: (header) => /\bgoogle-genai-sdk\//.test(header('x-goog-api-client') ?? '') },
];

/** The AI SDK provider package named in a user agent (`ai-sdk/mistral/3.0.1` -> `@ai-sdk/mistral`). */
const AI_SDK_AGENT = /\bai-sdk\/([a-z0-9-]+)\//g;

/** The known model SDK whose headers a request carries, if any. */
export function sdkOf(header: (name: string) => string | null): KnownSDK | undefined {
  const found = SDKS.find((sdk) => sdk.sent(header));
  if (found !== undefined) return found;
  const agent = [...(header('user-agent') ?? '').matchAll(AI_SDK_AGENT)].map((m) => m[1]!).find((name) => name !== 'provider-utils');
  if (agent === undefined) return undefined;
  const provider = AI_SDK_PROVIDERS[agent];
  return { name: `@ai-sdk/${agent}`, ...(provider === undefined ? {} : { provider }), sent: () => true };
}

/** Providers by the API host they serve (exact host, or a suffix starting with a dot). */
const HOSTS: ReadonlyArray<[host: string, provider: string]> = [
  ['api.openai.com', 'openai'],
  ['.openai.azure.com', 'azure.ai.openai'],
  ['.services.ai.azure.com', 'azure.ai.inference'],
  ['api.anthropic.com', 'anthropic'],
  ['api.groq.com', 'groq'],
  ['api.mistral.ai', 'mistral_ai'],
  ['api.deepseek.com', 'deepseek'],
  ['api.x.ai', 'x_ai'],
  ['api.perplexity.ai', 'perplexity'],
  ['api.cohere.com', 'cohere'],
  ['api.cohere.ai', 'cohere'],
  ['api.together.xyz', 'together_ai'],
  ['api.together.ai', 'together_ai'],
  ['openrouter.ai', 'openrouter'],
  ['api.fireworks.ai', 'fireworks'],
  ['generativelanguage.googleapis.com', 'gcp.gemini'],
  ['aiplatform.googleapis.com', 'gcp.vertex_ai'],
  ['.aiplatform.googleapis.com', 'gcp.vertex_ai'],
];

/** Ollama's own port, where it serves both its API and an OpenAI-compatible one. */
const OLLAMA_PORT = '11434';

/** The provider at `url`'s host, if the host (or Ollama's port) says. */
function providerOfHost(url: URL): string | undefined {
  const host = url.hostname.toLowerCase();
  for (const [known, provider] of HOSTS) {
    if (known.startsWith('.') ? host.endsWith(known) : host === known) return provider;
  }
  return url.port === OLLAMA_PORT ? 'ollama' : undefined;
}

/**
 * The provider a hooked SDK client (`openai`, `groq-sdk`) serves by its
 * `baseURL`'s host, if the host says; the hook names its requests for it,
 * else for its SDK's own provider. An `openai` client pointed at Groq,
 * Mistral, Together or Ollama's OpenAI-compatible port is named for them.
 * The hook asks once per client and `baseURL`, not per request.
 */
export function providerOfBaseURL(baseURL: unknown): string | undefined {
  if (typeof baseURL !== 'string') return undefined;
  try {
    return providerOfHost(new URL(baseURL));
  } catch {
    return undefined; // not a URL: the hook's own name
  }
}

/**
 * `gen_ai.provider.name` of a request to `url` with these headers: the
 * host's provider, else the SDK's, else `fallback` (the wire format's own
 * provider: who defined the API, when nothing says another serves it).
 */
export function providerName(url: URL, sdk: KnownSDK | undefined, fallback: string | undefined): string | undefined {
  return providerOfHost(url) ?? sdk?.provider ?? fallback;
}
