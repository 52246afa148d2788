// Groq: `groq-sdk` is a Stainless client like `openai`, speaking OpenAI's
// Chat Completions at `/openai/v1/chat/completions`. It is hooked as `openai`
// is (its `prepareRequest` hands a throw to the caller as it is, so strict
// mode refuses there, one attempt), and its requests are named `groq`. Its
// wire format is OpenAI's: the fetch seam reads any other client's requests
// to Groq through the openai provider's formats.

import type { ModelRequest, SerialisedHead } from '../../request-path/model-request';
import type { Provider } from '../provider';
import { openaiReading } from '../openai/wire-format';

/** `gen_ai.provider.name` of Groq requests, as the OpenTelemetry GenAI conventions name the provider. */
const GROQ_PROVIDER = 'groq';

const named = <T extends ModelRequest | SerialisedHead>(request: T | undefined): T | undefined =>
  request === undefined ? undefined : { ...request, provider: GROQ_PROVIDER };

export const groqProvider: Provider = {
  name: 'groq',
  client: {
    module: 'groq-sdk',
    manualKey: 'groq',
    range: '>=1.0.0 <2',
    byteSeam: 'prepareRequest',
    clientOf: (exports) => exports.Groq ?? exports.default,
    modelRequest: (options) => named(openaiReading().openAIModelRequest(options)),
    serialised: (options, text) => named(openaiReading().openAISerialised(options, text)),
  },
  wireFormats: [],
};
