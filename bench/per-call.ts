// The CPU the package adds to one real `openai` 6 Chat Completions call of
// about 100 messages, against the bare call and against what
// `@opentelemetry/instrumentation-openai` 0.22 (the OpenTelemetry contrib
// instrumentation, "contrib" below) adds to the same call. Two tables:
// 1. per call over the bare call: instrumented CPU / bare CPU (target <= 1.05);
// 2. against contrib: the package's added CPU / contrib's added CPU, each
//    over the bare call (target <= 0.75 on every path).
// Run: npm run build && node --import tsx bench/per-call.ts
// It installs test/versions/openai-6.0 (npm ci) first when that fixture is
// missing or stale: contrib 0.22 patches openai >=4.19 <7, and the package's
// own devDependency is openai 7.
//
// Three copies of openai 6 (bench/sdk-sides.ts): a bare one, loaded before
// anything is enabled; contrib's, loaded next, patched by contrib with the
// patch of its own module definition once the package's instrumentation is
// enabled (contrib's require hook would also patch the package's copy, and
// the package's hook contrib's, if either loaded after the other was on);
// the package's, loaded through its require hook, as zero code loads it. The
// bare and contrib clients get the global fetch as it was before the
// package's fetch seam wrapped it, so only the package sees its own calls.
// All three talk to one loopback server in a child process (its CPU is not
// counted); `process.cpuUsage` counts the process's CPU from the call to its
// settling, on every thread.
//
// What is fair to both: one telemetry set-up for all sides, as NodeSDK builds
// it with OTLP exporters configured: an AsyncLocalStorage context manager, a
// tracer provider with a batch span processor, a logger provider with a batch
// log record processor (the SDK's default queue and delays), and a meter
// provider with a periodic reader that does not export during the run. The
// exporters drop what they are given: neither side is charged for
// serialising or sending. That favours contrib, which makes a span and one
// log record per message (100 per call; their bodies are empty, with content
// capture off, the default of both), where the package adds to counters.
// Both run with their defaults (the package in warn mode).
//
// Three paths, each a column of both tables; per round every path makes one
// call on each of its three sides (bare, package, contrib), in an order that
// rotates from round to round, so that drift hits every side alike:
// - bound: the request is a bound log's messages, re-sent each call; the
//   package's side runs in `withSession`, the bare and contrib sides in an
//   active context of the same kind (an app with a server span pays for that
//   whether or not the package is there; bench/overhead.ts);
// - implicit re-sent, implicit fresh: no session bound (the implicit
//   conversation log); each side grows a conversation of its own from 80
//   messages by the reply and a new question per call, restarted (one untimed
//   call) every 20 calls, so 82 to 120 messages, 100 on average; "re-sent"
//   passes the app's own message objects again, "fresh" new ones each call
//   (built before the timer starts).
//
// Estimators: per round and path, the ratio of a side's CPU to the bare
// call's. Table 1 gives the median of the package's per-round ratios R with
// its distribution-free 95% interval (order statistics), as bench/sdk-calls.ts
// does. Table 2 gives (R - 1) / (Rc - 1), Rc contrib's median ratio: the
// package's added CPU in units of contrib's (the bare call's CPU cancels),
// with a 95% percentile bootstrap interval over rounds (rounds resampled
// whole, so each keeps its pairing). Medians, so that a collector pause or a
// batch export that lands in a few calls moves them little; the median added
// microseconds per call are printed beside them.
//
// BENCH_ROUNDS (default 300) sets the rounds counted, after 10 not counted.
// The load average is printed with each table: on a shared machine, state it
// with every figure.

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { context, createContextKey, logs, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { SessionLog, withSession } from '../dist/index';
import { installProject, staleReason } from '../test/support/fixture-projects';
import { PACKAGE_ROOT } from '../test/support/run-node';
import { bodyOf, Conversation, transcript, type Objects } from './conversation';
import { cpuOf, startSdkSides, type OpenAIModule, type Send } from './sdk-sides';
import { median, medianInterval } from './support';

/** The fixture project whose openai 6 every side loads. */
const OPENAI_6 = 'test/versions/openai-6.0';
const MESSAGES = 100;
/** Calls a conversation takes before its side starts a new one: 20 continuations add 40 messages. */
const RESTART = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const WARM_UP = 10;
const BOOTSTRAP_RESAMPLES = 2_000;

type Path = 'bound' | 'implicit re-sent' | 'implicit fresh';
const PATHS: readonly Path[] = ['bound', 'implicit re-sent', 'implicit fresh'];
type Side = 'bare' | 'package' | 'contrib';
const SIDES: readonly Side[] = ['bare', 'package', 'contrib'];

/** Exporters that drop what they are given (see the header). */
let spansExported = 0;
let logRecordsExported = 0;
const dropSpans: SpanExporter = {
  export: (spans, done) => {
    spansExported += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const dropLogRecords: LogRecordExporter = {
  export: (records, done) => {
    logRecordsExported += records.length;
    done({ code: 0 });
  },
  forceFlush: async () => {},
  shutdown: async () => {},
};

/** Installs the openai 6 fixture when it is missing or stale, as the test run's global setup does. */
async function ensureOpenAI6(): Promise<string> {
  const reason = staleReason(OPENAI_6);
  if (reason !== undefined) {
    console.log(`installing ${OPENAI_6} (${reason}) with npm ci: the openai 6 this bench loads`);
    await installProject(OPENAI_6);
  }
  const root = join(PACKAGE_ROOT, OPENAI_6);
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/openai/package.json'), 'utf8')) as { version: string };
  return `openai ${version}`;
}

/** Contrib enabled as a user enables it, its patch applied to `copy` (see the header for why not through its hook). */
function patchWithContrib(copy: OpenAIModule): OpenAIInstrumentation {
  const contrib = new OpenAIInstrumentation();
  for (const definition of contrib.getModuleDefinitions()) {
    definition.moduleExports = copy;
    definition.patch?.(copy, definition.moduleVersion);
  }
  return contrib;
}

/** 95% percentile bootstrap interval of `statistic` over whole rounds (indices resampled with replacement; a fixed seed). */
function bootstrapInterval(rounds: number, statistic: (indices: readonly number[]) => number): { low: number; high: number } {
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const values: number[] = [];
  const indices: number[] = new Array<number>(rounds);
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    for (let i = 0; i < rounds; i++) indices[i] = Math.floor(random() * rounds);
    values.push(statistic(indices));
  }
  values.sort((a, b) => a - b);
  return { low: values[Math.floor(BOOTSTRAP_RESAMPLES * 0.025)]!, high: values[Math.ceil(BOOTSTRAP_RESAMPLES * 0.975) - 1]! };
}

const verdict = (low: number, high: number, target: number) =>
  high <= target ? 'met' : low > target ? 'NOT met' : 'not decided at this precision';

async function main(): Promise<void> {
  const openaiVersion = await ensureOpenAI6();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans })] });
  trace.setGlobalTracerProvider(tracerProvider);
  const loggerProvider = new LoggerProvider({ processors: [new BatchLogRecordProcessor({ exporter: dropLogRecords })] });
  logs.setGlobalLoggerProvider(loggerProvider);
  let contrib: OpenAIInstrumentation | undefined;
  const sides = await startSdkSides({
    openaiFrom: join(PACKAGE_ROOT, OPENAI_6),
    rival: (copy) => (contrib = patchWithContrib(copy)),
  });
  const send: Record<Side, Send> = { bare: sides.bare, package: sides.instrumented, contrib: sides.rival! };

  // The bound path: one request, its log bound on the package's side.
  const boundMessages = transcript(MESSAGES, 'ascii', 'bound');
  const boundLog = SessionLog.seed(boundMessages);
  const boundBody = bodyOf('chat', boundMessages);
  const OTHER_KEY = createContextKey('bench.other');
  const inActiveContext = <T>(fn: () => T): T => context.with(context.active().setValue(OTHER_KEY, true), fn);

  // The implicit paths: a conversation per side.
  let conversation = 0;
  const talks = new Map<string, Conversation>();
  for (const path of PATHS.slice(1))
    for (const side of SIDES)
      talks.set(`${path}/${side}`, new Conversation('chat', MESSAGES - RESTART, 'ascii', path.slice('implicit '.length) as Objects));

  const cpu: Record<Path, Record<Side, number[]>> = {
    bound: { bare: [], package: [], contrib: [] },
    'implicit re-sent': { bare: [], package: [], contrib: [] },
    'implicit fresh': { bare: [], package: [], contrib: [] },
  };
  const checksBefore = await sides.checksRecorded();
  let packageCalls = 0;
  for (let round = -WARM_UP, calls = RESTART; round < ROUNDS; round++, calls++) {
    if (calls === RESTART) {
      calls = 0;
      for (const [key, talk] of talks) {
        const side = key.slice(key.indexOf('/') + 1) as Side;
        await send[side]('chat', talk.start(String(conversation++)));
        if (side === 'package') packageCalls++;
      }
    }
    for (const path of PATHS) {
      const bodies = SIDES.map((side) => (path === 'bound' ? boundBody : talks.get(`${path}/${side}`)!.next()));
      for (let k = 0; k < SIDES.length; k++) {
        const i = (round + WARM_UP + k) % SIDES.length;
        const side = SIDES[i]!;
        const call =
          path !== 'bound'
            ? () => send[side]('chat', bodies[i]!)
            : side === 'package'
              ? () => withSession(boundLog, () => send[side]('chat', bodies[i]!))
              : () => inActiveContext(() => send[side]('chat', bodies[i]!));
        const used = await cpuOf(call);
        if (side === 'package') packageCalls++;
        if (round >= 0) cpu[path][side].push(used);
      }
    }
  }
  const checks = (await sides.checksRecorded()) - checksBefore;
  await Promise.all([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

  const ratios = (path: Path, side: Side) => cpu[path][side].map((t, i) => t / cpu[path].bare[i]!);
  const added = (path: Path, side: Side) => median(cpu[path][side].map((t, i) => t - cpu[path].bare[i]!));
  const fixed = (x: number) => x.toFixed(3);
  console.log(
    `\nper-call CPU, ${openaiVersion}, Chat Completions, ${MESSAGES} messages, ${ROUNDS} rounds (load average ${load}); ` +
      `${checks} of the package's ${packageCalls} calls checked; contrib: ${spansExported} spans, ${logRecordsExported} log records exported`,
  );
  if (checks < packageCalls || spansExported === 0 || logRecordsExported === 0)
    throw new Error('a side did not do its work: the figures would not measure it');

  console.log('\n1. per call over the bare loopback call (median of per-round ratios, 95% interval; target <= 1.05)');
  console.table(
    PATHS.map((path) => {
      const r = medianInterval(ratios(path, 'package'));
      return {
        path,
        'bare µs': median(cpu[path].bare).toFixed(0),
        'package µs': median(cpu[path].package).toFixed(0),
        'added µs': added(path, 'package').toFixed(0),
        'package / bare': `${fixed(r.mid)} (${fixed(r.low)} to ${fixed(r.high)})`,
        target: verdict(r.low, r.high, 1.05),
      };
    }),
  );

  console.log(
    `\n2. against ${'@opentelemetry/instrumentation-openai'} 0.22: the package's added CPU / contrib's (95% bootstrap interval; target <= 0.75)`,
  );
  console.table(
    PATHS.map((path) => {
      const pkg = ratios(path, 'package');
      const con = ratios(path, 'contrib');
      const share = (indices: readonly number[]) => {
        const excess = median(indices.map((i) => con[i]!)) - 1;
        return excess > 0 ? (median(indices.map((i) => pkg[i]!)) - 1) / excess : Infinity;
      };
      const all = pkg.map((_, i) => i);
      const { low, high } = bootstrapInterval(pkg.length, share);
      const contribRatio = medianInterval(con);
      return {
        path,
        'package added µs': added(path, 'package').toFixed(0),
        'contrib added µs': added(path, 'contrib').toFixed(0),
        'contrib / bare': `${fixed(contribRatio.mid)} (${fixed(contribRatio.low)} to ${fixed(contribRatio.high)})`,
        'package / contrib': `${fixed(share(all))} (${fixed(low)} to ${fixed(high)})`,
        target: verdict(low, high, 0.75),
      };
    }),
  );
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
  contrib?.disable();
  await sides.close();
  await Promise.all([tracerProvider.shutdown(), loggerProvider.shutdown()]);
}

void main();
