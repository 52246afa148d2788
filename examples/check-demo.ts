// A session log, a request built from its fold (passes), and two buggy request
// builders (one drops a message, one invents one), each checked and verified.

import { SessionLog, check, setLogger, verify, type Message } from '../src/index';

const log = new SessionLog();
log.append('system_message', { content: 'You are a weather assistant.' });
log.append('turn_start', {});
log.append('user_message', { content: 'Do I need an umbrella in Lisbon?' });
log.append('step_start', {});
log.append('assistant_message', {
  content: null,
  toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
});
log.append('tool_call', { id: 'call_1', name: 'get_weather' });
log.append('tool_result', { content: '{"rain":true}', toolCallId: 'call_1', name: 'get_weather' });
log.append('step_end', {});

const correct: Message[] = log.deriveMessages();
const dropsTheToolResult: Message[] = correct.filter((m) => m.role !== 'tool');
const inventsAMessage: Message[] = [...correct, { role: 'user', content: 'Answer in French.' }];

setLogger({ warn: (message) => console.log(`  warn: ${message}`) });
for (const [name, request] of Object.entries({ correct, dropsTheToolResult, inventsAMessage })) {
  console.log(`${name}: ${JSON.stringify(check(log, request))}`);
  verify(log, request, { mode: 'warn', agentName: 'weather-demo' });
}
