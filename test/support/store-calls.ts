// An agent loop through the real `openai` SDK against the loopback provider,
// in process, and what the store tests read off the real OpenTelemetry SDK:
// the violations on spans, and the store's errors by reason.

import { VIOLATION_EVENT } from '../../src/index';
import { STORE_ERROR_METRIC } from '../../src/telemetry/semconv';
import { implicitStoreIdle } from '../../src/request-path/implicit/registry';
import type { InstrumentedSuite } from './instrumented';

export type LoopMessage = { role: string; content?: string | null; tool_calls?: Array<{ id: string }>; tool_call_id?: string };

const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];

export function storeCalls(suite: InstrumentedSuite) {
  const client = () => new suite.env.openai.OpenAI({ apiKey: 'test-key', baseURL: suite.server.openaiBaseURL, maxRetries: 0 });
  return {
    client,
    /**
     * One user message through the agent loop (a tool call, its result, the
     * answer); its duration, as the caller saw it. Resolves once the store
     * has reported its checks and done its writes (off the caller's path).
     */
    async turn(history: LoopMessage[], text: string): Promise<number> {
      const started = performance.now();
      history.push({ role: 'user', content: text });
      for (;;) {
        const completion = await client().chat.completions.create({ model: 'gpt-test', messages: history as never, tools });
        const reply = completion.choices[0]!.message as LoopMessage;
        history.push(reply);
        if (!reply.tool_calls) break;
        for (const call of reply.tool_calls) history.push({ role: 'tool', tool_call_id: call.id, content: 'PROMPT-TEXT a result' });
      }
      const took = performance.now() - started;
      await implicitStoreIdle();
      return took;
    },
    /** The store's errors so far, by reason. */
    async storeErrors(): Promise<Record<string, number>> {
      const points = await suite.env.otel.points(STORE_ERROR_METRIC);
      return Object.fromEntries(points.map((p) => [String(p.attributes['nous.session.invariant.store.reason']), p.value]));
    },
    /** The violation kinds on the spans finished since the last reset. */
    violations(): string[] {
      return suite.env.otel.spans
        .getFinishedSpans()
        .flatMap((s) =>
          s.events.filter((e) => e.name === VIOLATION_EVENT).map((e) => String(e.attributes?.['nous.session.invariant.kind'])),
        );
    },
  };
}

/** The history without its first tool result: a fault of the history store. */
export function withoutFirstToolResult(history: readonly LoopMessage[]): LoopMessage[] {
  const at = history.findIndex((m) => m.role === 'tool');
  return history.filter((_, i) => i !== at);
}
