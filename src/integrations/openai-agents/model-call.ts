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
import { checkModelRequest, type PendingReply } from '../../request-path/check-request';
import { contained } from '../../telemetry/internal-error';
import { fromAgentItems } from './adapter';
import { inRecordedModelCall, recordHandoff, recordTurnInput, recordTurnOutput, uncheckedView, viewBinding } from './turn-recorder';

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
const filteredInputs = new WeakMap<object, { aligned: boolean; unfiltered: unknown; instructions: unknown }>();

/** How to run one model call, and where its reply goes when the call itself reports it. */
interface CallPlan {
  run: <T>(fn: () => T) => T;
  pending?: PendingReply | undefined;
}

const SEAM = { name: 'Agents SDK model call', mayThrow: true };

/**
 * Before a model call: records its input, unless it is a filter's output,
 * and returns how to run the call: as a model call of a patched runner
 * (checked against the bound log), or, when the model is sent a view of the
 * log, with that view bound for the check. With no bound log, a call sent a
 * `callModelInputFilter`'s output is checked against the implicit log by its
 * unfiltered input (the conversation the run has; the filter's output is a
 * view of it), and the request itself is not checked again. Throws only a
 * strict-mode violation.
 */
function beforeCall(input: unknown, model: unknown): CallPlan {
  const filtered = input !== null && typeof input === 'object' ? filteredInputs.get(input) : undefined;
  const session = getActiveSession();
  if (filtered && !session) {
    const messages = contained(WHERE, () => unfilteredRequest(filtered.unfiltered, filtered.instructions), undefined);
    if (messages === undefined) return { run: inRecordedModelCall };
    const modelName = (model as { model?: unknown } | null)?.model;
    const pending = checkModelRequest(
      { provider: 'openai', model: typeof modelName === 'string' ? modelName : undefined, messages },
      {},
      SEAM,
    );
    return { run: (fn) => inRecordedModelCall(() => withSession(uncheckedView(), fn)), pending };
  }
  let view: Message[] | undefined;
  if (filtered) {
    if (filtered.aligned) view = contained(WHERE, () => fromAgentItems(input as unknown[]), undefined);
  } else {
    view = contained(WHERE, () => recordTurnInput(input).view, undefined);
  }
  const viewLog = view && session ? contained(WHERE, () => viewBinding(view), undefined) : undefined;
  if (!viewLog || !session) return { run: inRecordedModelCall };
  return { run: (fn) => inRecordedModelCall(() => withSession(viewLog, fn, { mode: session.mode, agentName: session.agentName })) };
}

/** The request the runner would have sent without its `callModelInputFilter`, as the Responses adapter reads one. */
function unfilteredRequest(unfiltered: unknown, instructions: unknown): Message[] | undefined {
  if (!Array.isArray(unfiltered)) return undefined;
  const system: Message[] = typeof instructions === 'string' && instructions !== '' ? [{ role: 'system', content: instructions }] : [];
  return [...system, ...fromAgentItems(unfiltered)];
}

/** After the call: the model's output items, to the call's own pending reply and to the turn recorder. */
function afterCall(plan: CallPlan, output: unknown): void {
  if (plan.pending && Array.isArray(output)) plan.pending.reply(fromAgentItems(output));
  recordTurnOutput(output);
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
    const plan = beforeCall(request?.input, model);
    const response = await plan.run(() => original.call(this, model, request, ...rest));
    contained(WHERE, () => afterCall(plan, response?.output), undefined);
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
    const plan = beforeCall(request?.input, model);
    const active = context.active();
    const iterator = plan.run(() => original.call(this, model, request, ...rest)[Symbol.asyncIterator]());
    const step = () => context.with(active, () => plan.run(() => iterator.next()));
    try {
      for (let next = await step(); !next.done; next = await step()) {
        const e = next.value as { type?: unknown; response?: { output?: unknown } };
        if (e?.type === 'response_done') contained(WHERE, () => afterCall(plan, e.response?.output), undefined);
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
    if (filter && input !== null && typeof input === 'object') {
      filteredInputs.set(input, { aligned: recorded?.aligned ?? false, unfiltered: inputItems, instructions: rest[0] });
    }
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
