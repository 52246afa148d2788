// Anthropic Messages as the transport seams read it.

import type { WireFormat } from '../wire-format';
import { lazyPart } from '../../lazy-part';

type Reading = typeof import('./model-request') & typeof import('./replies');
/**
 * How anthropic's requests and replies are read, loaded at the first request that needs them, not at start-up
 * (docs/performance.md "Cold start").
 */
export const anthropicReading = lazyPart('anthropic/reading', (): Reading => ({
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  ...(require('./model-request') as typeof import('./model-request')),
  ...(require('./replies') as typeof import('./replies')),
  /* eslint-enable @typescript-eslint/no-require-imports */
}));

/** `…/v1/messages` (beta included: the beta flag is a header). */
export const anthropicWireFormat: WireFormat = {
  name: 'anthropic.messages',
  mayBeModelURL: (url) => url.includes('messages'),
  isModelPath: (path) => anthropicReading().isAnthropicMessagesPath(path),
  request: (path, body) => anthropicReading().anthropicBodyRequest(path, body),
  replyFromBody: (body) => anthropicReading().anthropicReplyFromBody(body),
  assembler: () => anthropicReading().anthropicAssembler(),
};
