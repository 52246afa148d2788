// Logs used across the tests: the worked example of docs/behaviour.md §2.6.

import { SessionLog, type Message } from '../../src/index';

/** Events 0..7 of the example: system, user, step_start, assistant(c1), tool_call, tool_result c1, assistant, step_end. */
export function exampleLog(): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'sys' });
  log.append('user_message', { content: 'u1' });
  log.append('step_start', {});
  log.append('assistant_message', {
    content: '',
    toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'weather' } }],
  });
  log.append('tool_call', { id: 'c1', name: 'lookup' });
  log.append('tool_result', { content: 'res', toolCallId: 'c1', name: 'lookup' });
  log.append('assistant_message', { content: 'final' });
  log.append('step_end', {});
  return log;
}

/** A weather bot's log, one Anthropic tool call answered: what the next Messages request continues. */
export function weatherToolLog(): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'You are a weather bot.' });
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  log.append('assistant_message', {
    content: 'Let me look.',
    toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Lisbon' } }],
  });
  log.append('tool_result', { content: '{"rain":true}', toolCallId: 'toolu_1', name: 'get_weather' });
  return log;
}

/** A log whose fold has no leading system message. */
export function chatLog(...turns: Array<[role: 'user' | 'assistant', text: string]>): SessionLog {
  const log = new SessionLog();
  for (const [role, text] of turns) log.append(role === 'user' ? 'user_message' : 'assistant_message', { content: text });
  return log;
}

export function system(content: string): Message {
  return { role: 'system', content };
}

export function user(content: string): Message {
  return { role: 'user', content };
}
