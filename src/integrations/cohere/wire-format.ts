// Cohere v2 chat as the transport seams read it.

import type { WireFormat } from '../wire-format';
import { lazyPart } from '../../lazy-part';

type Reading = typeof import('./model-request') & typeof import('./replies');
/**
 * How cohere's requests and replies are read, loaded at the first request that needs them, not at start-up
 * (docs/performance.md "Cold start").
 */
export const cohereReading = lazyPart('cohere/reading', (): Reading => ({
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  ...(require('./model-request') as typeof import('./model-request')),
  ...(require('./replies') as typeof import('./replies')),
  /* eslint-enable @typescript-eslint/no-require-imports */
}));

/** `POST /v2/chat`, streamed (server-sent events) or not. */
export const cohereChatWireFormat: WireFormat = {
  name: 'cohere.chat',
  mayBeModelURL: (url) => url.includes('/v2/chat'),
  isModelPath: (path) => cohereReading().isCohereChatPath(path),
  request: (path, body) => cohereReading().cohereBodyRequest(path, body),
  replyFromBody: (body) => cohereReading().cohereReplyFromBody(body),
  assembler: () => cohereReading().cohereAssembler(),
};
