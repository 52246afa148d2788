// Wraps the Agents SDK runner's model call (`getResponseWithRetry` and
// `getStreamedResponseWithRetry` in dist/runner/modelRetry) so the turn
// recorder sees each turn's input before the call and its output after;
// `applyCallModelInputFilter` (dist/runner/conversation) so it records the
// turn's input as the run has it, before a `callModelInputFilter` drops or
// rewrites items for the model; and `executeHandoffCalls`
// (dist/runner/toolExecution) so it records a handoff's items before a
// handoff input filter drops them. The log never holds an order the run did
// not have. A model call sent a filter's view of the log is checked against
// that view, once the filter's input has lined up with the log.

import { context } from '@opentelemetry/api';
import type { Message } from '../../invariant/messages';
import { getActiveSession, withSession } from '../../invariant/session-binding';
import { contained } from '../../telemetry/internal-error';
import { fromAgentItems } from './adapter';
import { inRecordedModelCall, recordHandoff, recordTurnInput, recordTurnOutput, viewBinding } from './turn-recorder';

type ModelRequest = { input?: unknown };
type GetResponse = (model: unknown, request: ModelRequest, ...rest: unknown[]) => Promise<{ output?: unknown }>;
type GetStreamed = (model: unknown, request: ModelRequest, ...rest: unknown[]) => AsyncIterable<unknown>;
type FilterResult = { modelInput?: { input?: unknown } };
type ApplyFilter = (
  agent: unknown,
  filter: unknown,
  context: unknown,
  inputItems: unknown,
  ...rest: unknown[]
) => Promise<FilterResult | undefined>;
type StepResult = { originalInput?: unknown; preStepItems?: unknown; newStepItems?: unknown; toolInvocationCommitItems?: unknown };
type ExecuteHandoffCalls = (
  agent: unknown,
  originalInput: unknown,
  preStepItems: unknown,
  newStepItems: unknown,
  ...rest: unknown[]
) => Promise<StepResult | undefined>;

const WHERE = 'Agents SDK turn recorder';

/**
 * Filtered model inputs (the `input` array a `callModelInputFilter` returned,
 * which the runner sends as it is), with whether the unfiltered input lined
 * up with the log. Their model call records nothing: the filter's input was
 * recorded.
 */
const filteredInputs = new WeakMap<object, { aligned: boolean }>();

/**
 * Before a model call: records its input, unless it is a filter's output,
 * and returns how to run the call: as a model call of a patched runner
 * (checked against the bound log), or, when the model is sent a view of the
 * log, with that view bound for the check.
 */
function beforeCall(input: unknown): <T>(fn: () => T) => T {
  const filtered = input !== null && typeof input === 'object' ? filteredInputs.get(input) : undefined;
  let view: Message[] | undefined;
  if (filtered) {
    if (filtered.aligned) view = contained(WHERE, () => fromAgentItems(input as unknown[]), undefined);
  } else {
    view = contained(WHERE, () => recordTurnInput(input).view, undefined);
  }
  const session = getActiveSession();
  const viewLog = view && session ? contained(WHERE, () => viewBinding(view), undefined) : undefined;
  if (!viewLog || !session) return inRecordedModelCall;
  return (fn) => inRecordedModelCall(() => withSession(viewLog, fn, { mode: session.mode, agentName: session.agentName }));
}

/**
 * Wraps the runner's `getResponseWithRetry`: the turn recorder appends the
 * turn's input before the model call and its output items after it. That keeps
 * a log backing an `AgentsLogSession` in step with every request of a run, not
 * only after the run's one `addItems`. Recorder failures are contained; the
 * call and its result are passed through untouched.
 */
export function wrapGetResponse(original: GetResponse): GetResponse {
  return async function getResponseWithRetry(this: unknown, model, request, ...rest) {
    const run = beforeCall(request?.input);
    const response = await run(() => original.call(this, model, request, ...rest));
    contained(WHERE, () => recordTurnOutput(response?.output), undefined);
    return response;
  };
}

/**
 * The streamed counterpart of `wrapGetResponse`: records the input before the
 * call and the output from the `response_done` event, and yields every event
 * unchanged. Each step of the stream runs in the model call's context, where
 * the request is made.
 */
export function wrapGetStreamed(original: GetStreamed): GetStreamed {
  return async function* getStreamedResponseWithRetry(this: unknown, model, request, ...rest) {
    const run = beforeCall(request?.input);
    const active = context.active();
    const iterator = run(() => original.call(this, model, request, ...rest)[Symbol.asyncIterator]());
    const step = () => context.with(active, () => run(() => iterator.next()));
    try {
      for (let next = await step(); !next.done; next = await step()) {
        const e = next.value as { type?: unknown; response?: { output?: unknown } };
        if (e?.type === 'response_done') contained(WHERE, () => recordTurnOutput(e.response?.output), undefined);
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  };
}

/**
 * With a `callModelInputFilter`: the unfiltered turn input is recorded first,
 * and the filtered input the model is sent is remembered as a view of it.
 */
export function wrapApplyFilter(original: ApplyFilter): ApplyFilter {
  return async function applyCallModelInputFilter(this: unknown, agent, filter, context, inputItems, ...rest) {
    const recorded = filter ? contained(WHERE, () => recordTurnInput(inputItems), undefined) : undefined;
    const result = await original.call(this, agent, filter, context, inputItems, ...rest);
    const input = result?.modelInput?.input;
    if (recorded && input !== null && typeof input === 'object') filteredInputs.set(input, { aligned: recorded.aligned });
    return result;
  };
}

/**
 * A handoff: its items (the handoff's result included) are recorded as the
 * run had them, before a handoff input filter drops any, and the filtered
 * history becomes the run's view for the next agent's turns.
 */
export function wrapExecuteHandoffCalls(original: ExecuteHandoffCalls): ExecuteHandoffCalls {
  return async function executeHandoffCalls(this: unknown, agent, originalInput, preStepItems, newStepItems, ...rest) {
    const result = await original.call(this, agent, originalInput, preStepItems, newStepItems, ...rest);
    contained(
      WHERE,
      () => {
        if (result && typeof result === 'object') {
          recordHandoff(originalInput, preStepItems, result.toolInvocationCommitItems ?? result.newStepItems, result);
        }
      },
      undefined,
    );
    return result;
  };
}
