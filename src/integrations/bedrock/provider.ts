// Amazon Bedrock: the Converse API (`ConverseCommand`, `ConverseStreamCommand`)
// of `@aws-sdk/client-bedrock-runtime`, checked at the client's middleware
// stack (client-hook.ts): the client sends over node:http2, never through
// the fetch seam, so it has no wire format there.

import type { Provider } from '../provider';
import { bedrockIntegration } from './client-hook';

export const bedrockProvider: Provider = {
  name: 'aws.bedrock',
  hook: bedrockIntegration,
  wireFormats: [],
};
