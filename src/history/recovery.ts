// Recovery of an interrupted turn: answer each tool call the crash left owed
// with a synthetic result saying whether the tool may have run, then close
// the turn. Appends only; idempotent.

import type { EventData, EventType, SessionEvent } from '../log/events';
import type { SessionLog } from '../log/session-log';
import { logWarning, warnOnce } from '../warnings';

/**
 * Whether a tool call an interrupted turn owes may have run, as the synthetic
 * result tells the model. `outcome_unknown` is the default; `not_started` is
 * claimed only where the log shows the call was not dispatched. Telling the
 * model a tool did not run when it did invites a second payment or a second
 * email, while "outcome unknown" only costs a check (docs/behaviour.md §7.4).
 */
export type ToolRunRisk = 'outcome_unknown' | 'not_started';

/**
 * One event `recover` would append, as `plan` returns it: a synthetic
 * `tool_result` for an owed call (`metadata: { synthetic: true, risk }`), or
 * the `turn_end` that closes an interrupted turn. Its `type` and `data` go to
 * `SessionLog.append` as they are (docs/behaviour.md §7.4).
 */
export interface PlannedEvent {
  type: EventType;
  data: EventData;
}

interface OpenTurn {
  start: SessionEvent;
  steps: number;
}

interface OwedCall {
  id: string;
  name: string | null;
  turn: OpenTurn;
  /** The step open when the call was first seen, if any. */
  stepSeq: number | undefined;
}

/** `turn_start` events with no matching `turn_end`, innermost first. */
export function openTurns(log: SessionLog): SessionEvent[] {
  return scan(log)
    .open.map((t) => t.start)
    .reverse();
}

/** What `recover` would append, without appending it. */
export function plan(log: SessionLog): PlannedEvent[] {
  const { open, calls, answered, dispatched, closedSteps } = scan(log);
  const planned: PlannedEvent[] = [];
  for (const turn of [...open].reverse()) {
    const owed = calls.filter((c) => c.turn === turn && !answered.has(c.id));
    for (const call of owed) {
      const risk = riskOf(call, turn, dispatched, closedSteps);
      planned.push({
        type: 'tool_result',
        data: {
          content: syntheticContent(call, risk),
          toolCallId: call.id,
          name: call.name,
          metadata: { synthetic: true, risk },
        },
      });
    }
    planned.push({ type: 'turn_end', data: { reason: 'interrupted', steps: turn.steps, turnStartSeq: turn.start.seq } });
  }
  return planned;
}

/** Appends the plan; returns the appended events. A second call finds nothing to do. */
export function recover(log: SessionLog): SessionEvent[] {
  const appended: SessionEvent[] = [];
  for (const event of plan(log)) {
    const result = log.append(event.type, event.data);
    if (result.ok) appended.push(result.event);
    else logWarning(`recover: a ${event.type} event was not appended to the log: ${result.error.message}`);
  }
  return appended;
}

/**
 * Risk, first match wins: a `tool_call` event for the id (it was dispatched):
 * outcome unknown; the turn logged `tool_call` events for other ids: not
 * started; the call's step has its `step_end`: not started; else unknown.
 */
function riskOf(call: OwedCall, turn: OpenTurn, dispatched: Map<string, OpenTurn | undefined>, closedSteps: Set<number>): ToolRunRisk {
  if (dispatched.has(call.id)) return 'outcome_unknown';
  for (const owner of dispatched.values()) if (owner === turn) return 'not_started';
  if (call.stepSeq !== undefined && closedSteps.has(call.stepSeq)) return 'not_started';
  return 'outcome_unknown';
}

function syntheticContent(call: OwedCall, risk: ToolRunRisk): string {
  const tool = call.name ?? 'the tool';
  return risk === 'not_started'
    ? `[interrupted] ${tool} (call ${call.id}) did not run: the turn was interrupted before it started. It is safe to call it again.`
    : `[interrupted] ${tool} (call ${call.id}) was interrupted and may or may not have run; its result is unknown. Check its effects before calling it again.`;
}

function callIdOf(data: EventData): string | undefined {
  const id = data.id ?? data.toolCallId ?? data.callId;
  return typeof id === 'string' ? id : undefined;
}

function scan(log: SessionLog) {
  const open: OpenTurn[] = [];
  const steps: number[] = [];
  const closedSteps = new Set<number>();
  const calls: OwedCall[] = [];
  const seen = new Set<string>();
  const answered = new Set<string>();
  const dispatched = new Map<string, OpenTurn | undefined>();

  const sight = (id: string, name: string | null) => {
    if (seen.has(id)) return;
    seen.add(id);
    const turn = open.at(-1);
    if (turn) calls.push({ id, name, turn, stepSeq: steps.at(-1) });
  };

  for (const event of log.events()) {
    const data = event.data;
    switch (event.type) {
      case 'turn_start':
        open.push({ start: event, steps: 0 });
        break;
      case 'turn_end':
        if (open.length === 0) warnOnce(`stray-turn-end:${event.seq}`, `turn_end at seq ${event.seq} closes no turn; ignored`);
        else open.pop();
        break;
      case 'step_start':
        steps.push(event.seq);
        if (open.length > 0) open.at(-1)!.steps++;
        break;
      case 'step_end': {
        const step = steps.pop();
        if (step !== undefined) closedSteps.add(step);
        break;
      }
      case 'assistant_message':
        for (const call of (data.toolCalls ?? []) as Array<{ id?: unknown; name?: unknown }>) {
          if (typeof call?.id === 'string') sight(call.id, typeof call.name === 'string' ? call.name : null);
        }
        break;
      case 'tool_call': {
        const id = callIdOf(data);
        if (id === undefined) break;
        sight(id, typeof data.name === 'string' ? data.name : null);
        if (!dispatched.has(id)) dispatched.set(id, open.at(-1));
        break;
      }
      case 'tool_result':
        if (typeof data.toolCallId === 'string') answered.add(data.toolCallId);
        break;
      case 'system_message':
      case 'user_message':
      case 'request_header':
        break; // nothing to recover from them
    }
  }
  return { open, calls, answered, dispatched, closedSteps };
}
