/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS app, as the functions it stands for are */
// The app bench/cold-start.ts starts as a whole process: it loads `openai`
// and `@anthropic-ai/sdk` and makes a client of each, as a serverless
// function's module scope does, then prints what the process cost: CPU (user
// and system, from the process's start) and peak resident memory. With
// START_SDK=1 it starts a plain NodeSDK itself, the baseline `register` is
// compared with. HOOK_ONLY=1 (with START_SDK=1) then adds an
// instrumentation that patches nothing but hooks both SDKs, as one of
// contrib's would: the require hook's own cost, which any instrumentation of
// these modules pays. INSTRUMENT=1 (with START_SDK=1) passes this package's
// instrumentation to that NodeSDK, as an app that sets up OpenTelemetry
// itself does: the instrumentation's own cost, without `register`.
// BENCH_LIST=1 adds the package's own modules it loaded.
if (process.env.START_SDK === '1') {
  const { NodeSDK } = require('@opentelemetry/sdk-node');
  const instrumentations = [];
  if (process.env.INSTRUMENT === '1') {
    const { SessionInvariantInstrumentation } = require('nous-session-invariant/instrumentation');
    instrumentations.push(new SessionInvariantInstrumentation());
  }
  new NodeSDK({ instrumentations }).start();
}
if (process.env.HOOK_ONLY === '1') {
  const { InstrumentationBase, InstrumentationNodeModuleDefinition } = require('@opentelemetry/instrumentation');
  class HookOnly extends InstrumentationBase {
    init() {
      return ['openai', '@anthropic-ai/sdk'].map((name) => new InstrumentationNodeModuleDefinition(name, ['*'], (exports) => exports));
    }
  }
  new HookOnly('hook-only', '0.0.0');
}
const OpenAI = require('openai');
const Anthropic = require('@anthropic-ai/sdk');
new OpenAI.OpenAI({ apiKey: 'bench', baseURL: 'http://127.0.0.1:9' });
new Anthropic.Anthropic({ apiKey: 'bench', baseURL: 'http://127.0.0.1:9' });
const cpu = process.cpuUsage();
const dist = require('node:path').join(require.resolve('nous-session-invariant/package.json'), '..', 'dist');
const own = process.env.BENCH_LIST === '1' ? Object.keys(require.cache).filter((path) => path.startsWith(dist)) : undefined;
console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, maxRssKb: process.resourceUsage().maxRSS, own }));
