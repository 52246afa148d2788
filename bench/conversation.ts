// One side's conversation as an agent loop grows it, in each SDK's wire
// format, for the benches that drive the real SDK clients (bench/sdk-calls.ts,
// bench/per-call.ts): a tool-calling transcript with prose that makes each
// message the size of a real one, its first question naming the conversation,
// so that each side keeps conversations of its own.

import { toAnthropic, toOpenAIChat, toOpenAIResponses } from '../dist/adapters';
import type { Message } from '../dist/index';
import { REPLY, type Shape } from './sdk-sides';
import { agentLog, PROSE, requestOf, type Text } from './support';

/** The app's objects: "re-sent", one array grown in place whose entries are the same objects call after call; "fresh", new objects for every call. */
export type Objects = 're-sent' | 'fresh';

/** A tool-calling transcript of about `size` canonical messages, its prose in `text`, the first question naming `conversation`. */
export function transcript(size: number, text: Text, conversation: string): Message[] {
  const prose = PROSE[text];
  let named = false;
  return requestOf(agentLog(size).deriveMessages()).map((m) => {
    if (typeof m.content !== 'string' || m.role === 'system') return m;
    const first = m.role === 'user' && !named;
    if (first) named = true;
    return { ...m, content: (first ? `Conversation ${conversation}. ` : '') + m.content + prose };
  });
}

/** What the app passes to its SDK for these canonical messages. */
export function bodyOf(shape: Shape, messages: readonly Message[]): Record<string, unknown> {
  if (shape === 'chat') return { model: 'bench', messages: toOpenAIChat(messages) };
  if (shape === 'responses') return { model: 'bench', input: toOpenAIResponses(messages) };
  const { system, messages: list } = toAnthropic(messages);
  return { model: 'bench', max_tokens: 1024, system, messages: list };
}
const listKey = (shape: Shape) => (shape === 'responses' ? 'input' : 'messages');

/** One new question (and the reply before it) in the conversation's wire format: what each continuation adds. */
function turnOf(shape: Shape, text: Text, i: number): unknown[] {
  const key = listKey(shape);
  const extra = bodyOf(shape, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: REPLY },
    { role: 'user', content: `And after that, step ${i}?${PROSE[text]}` },
  ])[key] as unknown[];
  return extra.slice(1);
}

/**
 * One side's conversation, as an agent loop grows it: `start` is its first
 * request, `next` each continuation (the previous request, the reply, a new
 * question). Re-sent: one array the app grows, whose entries are the same
 * objects call after call (each call gets a copy of the list, the entries
 * shared). Fresh: every body a deep copy.
 */
export class Conversation {
  #items: unknown[] = [];
  #first: Record<string, unknown> = {};
  #turns = 0;
  constructor(
    readonly shape: Shape,
    readonly size: number,
    readonly text: Text,
    readonly objects: Objects,
  ) {}

  /** A new conversation named `name`: its first request. */
  start(name: string): Record<string, unknown> {
    this.#first = bodyOf(this.shape, transcript(this.size, this.text, name));
    this.#items = [...(this.#first[listKey(this.shape)] as unknown[])];
    this.#turns = 0;
    return this.#body(this.#items);
  }

  /** The next continuation. */
  next(): Record<string, unknown> {
    this.#items.push(...turnOf(this.shape, this.text, this.#turns++));
    return this.#body(this.#items);
  }

  /** The conversation so far with a user question from the middle left out: a missing message. */
  dropped(): Record<string, unknown> {
    const items = [...this.#items, ...turnOf(this.shape, this.text, this.#turns++)];
    items.splice(middleQuestion(items), 1);
    return this.#body(items);
  }

  #body(items: unknown[]): Record<string, unknown> {
    return { ...this.#first, [listKey(this.shape)]: this.objects === 'fresh' ? structuredClone(items) : items.slice() };
  }
}

/** The index of a user question near the middle of `items` (a string-content user entry). */
function middleQuestion(items: readonly unknown[]): number {
  for (let i = items.length >> 1; i < items.length; i++) {
    const item = items[i] as { role?: unknown; content?: unknown };
    if (item.role === 'user' && typeof item.content === 'string') return i;
  }
  throw new Error('no user question after the middle');
}
