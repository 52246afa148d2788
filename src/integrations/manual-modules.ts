// The argument of `manuallyInstrument`: the SDK modules a require hook cannot
// see load (a bundle that inlines them, an ES module imported with no loader
// hook), named by key. Each key is one integration's `manual` entry
// (integration.ts); the instrumentation applies them (manual-patches.ts).

/**
 * An SDK module as the app holds it: what `import * as openai from 'openai'`
 * or `require('openai')` gives, or the client class itself (`import OpenAI
 * from 'openai'`). Checked when it is given: a value that holds no such
 * client is warned about and left alone.
 */
export type SdkModule = object;

/**
 * The SDK modules to patch by hand, one key per SDK the instrumentation
 * hooks by `require`. SDKs that call `globalThis.fetch` (`@google/genai`,
 * `ollama`, `cohere-ai`, the AI SDK's providers) need no entry: the fetch
 * seam checks their requests wherever they are loaded from.
 */
export interface ManualModules {
  /** `openai` (also the client the OpenAI Agents SDK calls). */
  openai?: SdkModule;
  /** `@anthropic-ai/sdk`. */
  anthropic?: SdkModule;
  /** `groq-sdk`. */
  groq?: SdkModule;
  /** `@aws-sdk/client-bedrock-runtime` (or its `BedrockRuntimeClient` class). */
  bedrock?: SdkModule;
}

/** A key of `ManualModules`. */
export type ManualModuleKey = keyof ManualModules;
