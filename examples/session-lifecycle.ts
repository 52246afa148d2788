// The log as the source of truth: a long conversation is compacted with a
// summary, forked, and an interrupted turn is recovered; every request is
// built from the view (fold + overlay) and sent through the OpenAI SDK with
// the instrumentation in strict mode, so any divergence would throw.
//
//   NODE_ENV=test NOUS_SESSION_INVARIANT=strict \
//     node --require nous-session-invariant/register --import tsx examples/session-lifecycle.ts

import OpenAI from 'openai';
import { Session, SessionView, compact, fork, openTurns, recover } from 'nous-session-invariant/history';
import { appendMessage, withSession } from 'nous-session-invariant';
import { fromOpenAIChat, toOpenAIChat } from 'nous-session-invariant/adapters';
import { startLocalModel } from './support/local-model';

async function ask(client: OpenAI, session: Session, view: SessionView, question: string): Promise<void> {
  appendMessage(session.log, { role: 'user', content: question });
  // Tool round trips until the model answers; each request is the view.
  for (let step = 0; step < 3; step++) {
    const completion = await withSession(session.log, () =>
      client.chat.completions.create({ model: 'local-demo', messages: toOpenAIChat(view.messages) }),
    );
    const reply = fromOpenAIChat([completion.choices[0]!.message])[0]!;
    appendMessage(session.log, reply);
    if (!reply.toolCalls?.length) return;
    for (const call of reply.toolCalls) {
      appendMessage(session.log, { role: 'tool', content: '{"rain":true}', toolCallId: call.id, name: call.name });
    }
  }
}

async function main(): Promise<void> {
  const model = await startLocalModel();
  const client = new OpenAI({ apiKey: 'local-demo', baseURL: model.baseURL, maxRetries: 0 });
  try {
    const session = new Session();
    const view = new SessionView(session.log, 'Answer in one sentence.'); // the overlay: never persisted
    appendMessage(session.log, { role: 'system', content: 'You are a weather assistant.' });
    for (let i = 1; i <= 5; i++) await ask(client, session, view, `Question ${i}: umbrella in Lisbon?`);
    console.log(`after 5 questions: ${view.messages.length} messages in the view, ${session.log.count} events in the log`);

    const compacted = await compact(view, {
      keepRecent: 2,
      summarize: (messages) => `The user asked about Lisbon's weather ${messages.filter((m) => m.role === 'user').length} times; it rains.`,
    });
    if (!compacted.ok) throw compacted.error;
    console.log(
      `compacted ${compacted.summarized} messages: ${view.messages.length} in the view, still ${session.log.count} events in the log`,
    );
    await ask(client, session, view, 'And tomorrow?');

    const branched = fork(session);
    if (!branched.ok) throw branched.error;
    const branch = branched.session;
    await ask(client, branch, new SessionView(branch.log, 'Answer in one sentence.'), 'What about Porto?');
    console.log(
      `fork ${branch.id.slice(0, 8)}… of ${branch.parent!.sessionId.slice(0, 8)}… inherited ${branch.parent!.seedLength} events, now ${branch.log.count}`,
    );

    // A turn interrupted mid-tool-call: the process died after the model asked for the tool.
    session.log.append('turn_start', {});
    appendMessage(session.log, { role: 'user', content: 'Book me a taxi.' });
    session.log.append('step_start', {});
    appendMessage(session.log, { role: 'assistant', content: null, toolCalls: [{ id: 'call_taxi', name: 'book_taxi', arguments: '{}' }] });
    session.log.append('tool_call', { id: 'call_taxi', name: 'book_taxi' });
    console.log(`open turns before recovery: ${openTurns(session.log).length}`);
    const repairs = recover(session.log);
    console.log(`recovered with ${repairs.length} events; risk of the taxi call: ${JSON.stringify(repairs[0]!.data.metadata)}`);
    await ask(client, session, view, 'Did the taxi get booked?');
    console.log('every request was built from the view and passed the check in strict mode');
  } finally {
    await model.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
