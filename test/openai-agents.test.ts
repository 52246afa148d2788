import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_METRIC } from '../src/telemetry/semconv';
import { SessionLog, VIOLATION_METRIC, withSession } from '../src/index';
import { AgentsLogSession } from '../src/openai-agents';
import { useInstrumentedProvider } from './support/instrumented';
import { loadAgents, weatherAgent as weatherAgentOf, type AgentsModule } from './support/agents';

const suite = useInstrumentedProvider({ mode: 'warn' });
let agents: AgentsModule;

beforeAll(() => {
  agents = loadAgents(suite);
});

const weatherAgent = () => weatherAgentOf(agents);

describe('OpenAI Agents SDK with a SessionLog-backed Session', () => {
  it('a multi-step tool-calling run raises no violation in strict mode, turn after turn and run after run', async () => {
    const session = new AgentsLogSession();
    const agent = weatherAgent();
    const checks = await suite.env.otel.total(CHECKS_METRIC);
    const violations = await suite.env.otel.total(VIOLATION_METRIC);
    const first = await withSession(session.log, () => agents.run(agent, 'Umbrella in Lisbon?', { session }), { mode: 'strict' });
    expect(first.finalOutput).toMatch(/^answer/);
    const second = await withSession(session.log, () => agents.run(agent, 'And tomorrow?', { session }), { mode: 'strict' });
    expect(second.finalOutput).toMatch(/^answer/);
    expect(await suite.env.otel.total(CHECKS_METRIC)).toBe(checks + 4);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(violations);
    expect(session.log.deriveMessages().map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    // The runner's end-of-run addItems added nothing twice.
    expect(session.log.count).toBe(8);
    expect((await session.getItems()).map((i) => i.type)).toEqual([
      'message',
      'function_call',
      'function_call_result',
      'message',
      'message',
      'function_call',
      'function_call_result',
      'message',
    ]);
  });

  it('a streamed run is recorded turn by turn too', async () => {
    const session = new AgentsLogSession();
    const violations = await suite.env.otel.total(VIOLATION_METRIC);
    const result = await withSession(session.log, () => agents.run(weatherAgent(), 'Umbrella in Lisbon?', { session, stream: true }), {
      mode: 'strict',
    });
    for await (const _event of result) {
      // drain the stream
    }
    await result.completed;
    expect(String(result.finalOutput)).toMatch(/^answer/);
    expect(await suite.env.otel.total(VIOLATION_METRIC)).toBe(violations);
    expect(session.log.deriveMessages().map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('a session that drops a message from the history it hands the runner is caught as missing_message', async () => {
    class ForgetfulSession extends AgentsLogSession {
      override async getItems(limit?: number) {
        return (await super.getItems(limit)).slice(1);
      }
    }
    const session = new ForgetfulSession();
    const agent = weatherAgent();
    await withSession(session.log, () => agents.run(agent, 'Umbrella in Lisbon?', { session }));
    const before = await suite.env.otel.total(VIOLATION_METRIC, 'missing_message');
    await withSession(session.log, () => agents.run(agent, 'And tomorrow?', { session }));
    expect(await suite.env.otel.total(VIOLATION_METRIC, 'missing_message')).toBeGreaterThan(before);
  });

  it('a session that invents a message is caught as extra_message, and strict mode stops the run', async () => {
    class InventiveSession extends AgentsLogSession {
      override async getItems(limit?: number) {
        return [
          {
            type: 'message' as const,
            role: 'assistant' as const,
            status: 'completed' as const,
            content: [{ type: 'output_text' as const, text: 'I never said this' }],
          },
          ...(await super.getItems(limit)),
        ];
      }
    }
    const session = new InventiveSession();
    const sent = suite.server.received.length;
    const run = withSession(session.log, () => agents.run(weatherAgent(), 'Umbrella in Lisbon?', { session }), { mode: 'strict' });
    await expect(run).rejects.toThrow(/extra_message/);
    expect(suite.server.received.length).toBe(sent);
  });

  it('never writes to a bound log that no AgentsLogSession owns', async () => {
    const ownLog = new SessionLog();
    ownLog.append('user_message', { content: 'Umbrella in Lisbon?' });
    await withSession(ownLog, () => agents.run(weatherAgent(), 'Umbrella in Lisbon?'));
    expect(ownLog.count).toBe(1);
  });

  it('is append-only: popItem and clearSession are refused', async () => {
    const session = new AgentsLogSession();
    await expect(session.popItem()).rejects.toThrow(/append-only/);
    await expect(session.clearSession()).rejects.toThrow(/append-only/);
  });
});
