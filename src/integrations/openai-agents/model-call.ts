// Wraps the Agents SDK runner's model call (`getResponseWithRetry` and
// `getStreamedResponseWithRetry` in dist/runner/modelRetry) so the turn
// recorder sees each turn's input before the call and its output after.

import { reportInternalError } from '../../telemetry/internal-error';
import { recordTurnInput, recordTurnOutput } from './turn-recorder';

type ModelRequest = { input?: unknown };
type GetResponse = (model: unknown, request: ModelRequest, ...rest: unknown[]) => Promise<{ output?: unknown }>;
type GetStreamed = (model: unknown, request: ModelRequest, ...rest: unknown[]) => AsyncIterable<unknown>;

function safely(where: string, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    reportInternalError(where, error);
  }
}

export function wrapGetResponse(original: GetResponse): GetResponse {
  return async function getResponseWithRetry(this: unknown, model, request, ...rest) {
    safely('agents turn recorder', () => recordTurnInput(request?.input));
    const response = await original.call(this, model, request, ...rest);
    safely('agents turn recorder', () => recordTurnOutput(response?.output));
    return response;
  };
}

export function wrapGetStreamed(original: GetStreamed): GetStreamed {
  return async function* getStreamedResponseWithRetry(this: unknown, model, request, ...rest) {
    safely('agents turn recorder', () => recordTurnInput(request?.input));
    for await (const event of original.call(this, model, request, ...rest)) {
      const e = event as { type?: unknown; response?: { output?: unknown } };
      if (e?.type === 'response_done') safely('agents turn recorder', () => recordTurnOutput(e.response?.output));
      yield event;
    }
  };
}
