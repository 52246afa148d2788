// Wraps the Agents SDK runner's model call (`getResponseWithRetry` and
// `getStreamedResponseWithRetry` in dist/runner/modelRetry) so the turn
// recorder sees each turn's input before the call and its output after, and
// `applyCallModelInputFilter` (dist/runner/conversation) so it records the
// turn's input as the run has it, before a `callModelInputFilter` drops or
// rewrites items for the model: the log never holds an order the run did not.

import { contained } from '../../telemetry/internal-error';
import { recordTurnInput, recordTurnOutput } from './turn-recorder';

type ModelRequest = { input?: unknown };
type GetResponse = (model: unknown, request: ModelRequest, ...rest: unknown[]) => Promise<{ output?: unknown }>;
type GetStreamed = (model: unknown, request: ModelRequest, ...rest: unknown[]) => AsyncIterable<unknown>;
type ApplyFilter = (agent: unknown, filter: unknown, context: unknown, inputItems: unknown, ...rest: unknown[]) => Promise<unknown>;

const WHERE = 'Agents SDK turn recorder';

/**
 * Wraps the runner's `getResponseWithRetry`: the turn recorder appends the
 * turn's input before the model call and its output items after it. That keeps
 * a log backing an `AgentsLogSession` in step with every request of a run, not
 * only after the run's one `addItems`. Recorder failures are contained; the
 * call and its result are passed through untouched.
 */
export function wrapGetResponse(original: GetResponse): GetResponse {
  return async function getResponseWithRetry(this: unknown, model, request, ...rest) {
    contained(WHERE, () => recordTurnInput(request?.input), undefined);
    const response = await original.call(this, model, request, ...rest);
    contained(WHERE, () => recordTurnOutput(response?.output), undefined);
    return response;
  };
}

/**
 * The streamed counterpart of `wrapGetResponse`: records the input before the
 * call and the output from the `response_done` event, and yields every event
 * unchanged.
 */
export function wrapGetStreamed(original: GetStreamed): GetStreamed {
  return async function* getStreamedResponseWithRetry(this: unknown, model, request, ...rest) {
    contained(WHERE, () => recordTurnInput(request?.input), undefined);
    for await (const event of original.call(this, model, request, ...rest)) {
      const e = event as { type?: unknown; response?: { output?: unknown } };
      if (e?.type === 'response_done') contained(WHERE, () => recordTurnOutput(e.response?.output), undefined);
      yield event;
    }
  };
}

/** The unfiltered turn input is recorded first; the filtered request then adds nothing the log lacks. */
export function wrapApplyFilter(original: ApplyFilter): ApplyFilter {
  return function applyCallModelInputFilter(this: unknown, agent, filter, context, inputItems, ...rest) {
    if (filter) contained(WHERE, () => recordTurnInput(inputItems), undefined);
    return original.call(this, agent, filter, context, inputItems, ...rest);
  };
}
