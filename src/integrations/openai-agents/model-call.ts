// Wraps the Agents SDK runner's model call (`getResponseWithRetry` and
// `getStreamedResponseWithRetry` in dist/runner/modelRetry) so the turn
// recorder sees each turn's input before the call and its output after;
// `applyCallModelInputFilter` (dist/runner/conversation) so it records the
// turn's input as the run has it, before a `callModelInputFilter` drops or
// rewrites items for the model; and `executeHandoffCalls`
// (dist/runner/toolExecution) so it records a handoff's items before a
// handoff input filter drops them. The log never holds an order the run did
// not have.
//
// An input filter is a request builder like any other: what it hands the
// model is checked against the bound log, or, with none, against the run's
// own history (what the runner had, with the model's replies), which is
// itself checked against the implicit log. An app that filters on purpose
// says so (`trustInputFilters`, NOUS_SESSION_INVARIANT_TRUST_INPUT_FILTERS):
// the filter's output is then taken as a view of the log (docs/behaviour.md
// §5.5).

import { context } from '@opentelemetry/api';
import { startsWithMessages } from '../../invariant/message-equality';
import type { Message } from '../../model/messages';
import { getActiveSession, withSession } from '../../invariant/session-binding';
import { SessionLog } from '../../log/session-log';
import { checkModelRequest } from '../../request-path/check-request';
import type { PendingReply } from '../../request-path/reply';
import { currentHost } from '../../request-path/host';
import { currentRun } from '../../request-path/run';
import { contained } from '../../telemetry/internal-error';
import { fromAgentItems } from './adapter';
import { inRecordedModelCall, recordHandoff, recordTurnInput, recordTurnOutput, uncheckedView, viewBinding } from './turn-recorder';

type ModelRequest = { input?: unknown; systemInstructions?: unknown };
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

/** Whether input filters are trusted: the instrumentation's `trustInputFilters`, else the environment, else not (host.ts `settingsFrom` resolves it). */
function trustInputFilters(): boolean {
  return currentHost().settings().trustInputFilters === true;
}

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

type Filtered = { aligned: boolean; unfiltered: unknown; instructions: unknown } | undefined;

/**
 * Before a model call: records its input, unless it is a filter's output,
 * and returns how to run the call. With a bound log the request is checked
 * against it by the `openai` seam, filtered or not (a trusted filter's
 * output against the filter's view instead). With none, see `implicitPlan`.
 * Throws only a strict-mode violation.
 */
function beforeCall(input: unknown, model: unknown, instructions: unknown): CallPlan {
  const filtered = input !== null && typeof input === 'object' ? filteredInputs.get(input) : undefined;
  const session = getActiveSession();
  if (!session) return implicitPlan(input, filtered, model, instructions);
  let view: Message[] | undefined;
  if (filtered) {
    if (filtered.aligned) view = contained(WHERE, () => fromAgentItems(input as unknown[]), undefined);
  } else {
    view = contained(WHERE, () => recordTurnInput(input).view, undefined);
  }
  if (!view || !trustInputFilters()) return { run: inRecordedModelCall };
  const viewLog = contained(WHERE, () => viewBinding(view), undefined);
  if (!viewLog) return { run: inRecordedModelCall };
  return { run: (fn) => inRecordedModelCall(() => withSession(viewLog, fn, { mode: session.mode, agentName: session.agentName })) };
}

/**
 * A model call with no bound log. When no filter changed what the runner
 * had, the `openai` seam checks the request against the implicit log as it
 * is. Otherwise the run's own history (its input before a
 * `callModelInputFilter`, with what a handoff input filter dropped) is
 * checked against the implicit log and takes the model's reply, and the
 * request the filter produced is checked against that history (unless
 * filters are trusted); the request is then not checked a third time.
 */
function implicitPlan(input: unknown, filtered: Filtered, model: unknown, instructions: unknown): CallPlan {
  const plain: CallPlan = { run: inRecordedModelCall };
  const runnerInput = filtered ? filtered.unfiltered : input;
  if (!Array.isArray(runnerInput) || !Array.isArray(input)) return plain;
  const requests = contained(
    WHERE,
    () => {
      const history = runHistory(fromAgentItems(runnerInput));
      if (!filtered && !history.restored) return undefined;
      return {
        history: [...systemMessages(filtered ? filtered.instructions : instructions), ...history.messages],
        sent: [...systemMessages(instructions), ...fromAgentItems(input)],
      };
    },
    undefined,
  );
  if (requests === undefined) return plain;
  const modelName = (model as { model?: unknown } | null)?.model;
  const request = (messages: Message[]) => ({ provider: 'openai', model: typeof modelName === 'string' ? modelName : undefined, messages });
  const pending = checkModelRequest(request(requests.history), {}, SEAM);
  if (!trustInputFilters()) {
    const historyLog = contained(WHERE, () => seedOrUndefined(requests.history), undefined);
    if (historyLog) checkModelRequest(request(requests.sent), { log: historyLog, logKind: 'implicit' }, SEAM);
  }
  return { run: (fn) => inRecordedModelCall(() => withSession(uncheckedView(), fn)), pending };
}

function seedOrUndefined(messages: readonly Message[]): SessionLog | undefined {
  try {
    return SessionLog.seed(messages);
  } catch {
    return undefined;
  }
}

function systemMessages(instructions: unknown): Message[] {
  return typeof instructions === 'string' && instructions !== '' ? [{ role: 'system', content: instructions }] : [];
}

/**
 * With no bound log, the history a handoff input filter left a run, and the
 * history the run had before the filter, by run (the Agents SDK's current
 * trace, one per `run()`): the next agent's input continues the filtered one.
 */
const runHistories = new WeakMap<object, { filtered: Message[]; unfiltered: Message[] }>();

function runKey(): object | undefined {
  const run = currentRun();
  return typeof run === 'object' ? run : undefined;
}

/** The run's own history for a runner input: what a handoff input filter dropped put back. */
function runHistory(messages: Message[]): { messages: Message[]; restored: boolean } {
  const key = runKey();
  const handoff = key ? runHistories.get(key) : undefined;
  if (!handoff || !startsWithMessages(messages, handoff.filtered)) return { messages, restored: false };
  return { messages: [...handoff.unfiltered, ...messages.slice(handoff.filtered.length)], restored: true };
}

/** A handoff with no bound log: remembers what its input filter left the run, and what the run had. */
function rememberHandoff(before: Message[], after: Message[]): void {
  const key = runKey();
  if (!key) return;
  const unfiltered = runHistory(before).messages;
  if (after.length === unfiltered.length && startsWithMessages(after, unfiltered)) runHistories.delete(key);
  else runHistories.set(key, { filtered: after, unfiltered });
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
    const plan = beforeCall(request?.input, model, request?.systemInstructions);
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
    const plan = beforeCall(request?.input, model, request?.systemInstructions);
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
        if (!result || typeof result !== 'object') return;
        const histories = recordHandoff(originalInput, preStepItems, result.toolInvocationCommitItems ?? result.newStepItems, result);
        if (!getActiveSession()) rememberHandoff(histories.before, histories.after);
      },
      undefined,
    );
    return result;
  };
}
