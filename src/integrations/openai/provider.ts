// The OpenAI provider: Chat Completions and Responses, checked at the
// `openai` client's hook, and at the fetch seam for any other client.

import type { Provider } from '../provider';
import { SUPPORTED_VERSIONS } from '../supported-versions';
import { openaiChatWireFormat, openaiReading, openaiResponsesWireFormat } from './wire-format';

/** The npm package the OpenAI client hook patches; also its name in warnings and its ESM loader hook entry. */
export const OPENAI_MODULE = 'openai';
/** The majors whose client has `prepareOptions` with the semantics the hook relies on, tested in CI (supported-versions.ts). */
const OPENAI_SUPPORTED = SUPPORTED_VERSIONS.openai.range;

/**
 * The `openai` client, checked at its `prepareOptions` seam once per attempt
 * (retries are not checked again): Chat Completions and Responses, Azure
 * deployment paths included. The Agents SDK's model calls go through it too
 * (docs/behaviour.md §8.5).
 */
export const openaiProvider: Provider = {
  name: 'openai',
  client: {
    module: OPENAI_MODULE,
    manualKey: 'openai',
    range: OPENAI_SUPPORTED,
    byteSeam: 'prepareRequest',
    clientOf: (exports) => exports.OpenAI ?? exports.default,
    modelRequest: (options) => openaiReading().openAIModelRequest(options),
    serialised: (options, text) => openaiReading().openAISerialised(options, text),
  },
  wireFormats: [openaiChatWireFormat, openaiResponsesWireFormat],
};
