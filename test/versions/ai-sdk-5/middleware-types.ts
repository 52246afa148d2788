// Compiled by test/ai-sdk-versions.test.ts with this folder's `ai` (tsc
// --noEmit -p here): the middleware is a LanguageModelMiddleware of this
// version, wraps its provider's models alone and beside another middleware,
// and recordAiSdkSteps is a step callback of generateText and streamText.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { recordAiSdkSteps, sessionInvariantMiddleware } from '../../../src/ai-sdk';
import { SessionLog } from '../../../src/index';

const log = new SessionLog();
const openai = createOpenAI({ apiKey: 'test-key' });
const typed: LanguageModelMiddleware = sessionInvariantMiddleware({ log, mode: 'strict' });
const own: LanguageModelMiddleware = { ...typed, transformParams: async ({ params }) => params };

export const chat = wrapLanguageModel({ model: openai.chat('gpt-test'), middleware: sessionInvariantMiddleware() });
export const responses = wrapLanguageModel({ model: openai('gpt-test'), middleware: [own, sessionInvariantMiddleware({ log })] });

export const run = () => generateText({ model: chat, prompt: 'hi', onStepFinish: recordAiSdkSteps(log) });
export const stream = () => streamText({ model: responses, prompt: 'hi', onStepFinish: recordAiSdkSteps(log) });
