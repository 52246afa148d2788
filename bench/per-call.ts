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
// Each instrumentation is measured in processes of its own, against a bare
// call in the same process, so that neither pays for collecting the other's
// objects (contrib's batch queue keeps up to 2,048 log records, 100 a call).
// The processes alternate, BLOCKS of each, the order swapped from block to
// block, so that a change of the machine's load hits both alike; each ratio
// is over the bare call of its own process, so a slower machine in one block
// slows its numerator and denominator alike (the bare call's CPU rose from
// about 600 to 800 µs between loads of 12 and 17 on the 2-core machine).

// In each process, two copies of openai 6 (bench/sdk-sides.ts): a bare one,
// loaded before anything is enabled and given the global fetch as it was
// before the package's fetch seam wrapped it; and the package's, loaded
// through its require hook as zero code loads it, or contrib's, loaded before
// the package's instrumentation and patched with the patch of contrib's own
// module definition (its require hook would also patch any copy loaded after
// it) and given the unwrapped fetch too, so the package never sees its calls.
// Every client talks to a loopback server in a child process (its CPU is not
// counted); `process.cpuUsage` counts the process's CPU from the call to its
// settling, on every thread.
//
// What is fair to both: one telemetry set-up for both, as NodeSDK builds it
// by default (OTLP exporters for all three signals): an AsyncLocalStorage
// context manager, a tracer provider with a batch span processor, a logger
// provider with a batch log record processor (the SDK's default queue and
// delays), and a meter provider with a periodic reader that does not export
// during the run. The exporters drop what they are given: neither side is
// charged for serialising or sending, which favours contrib: it makes a span
// and one log record per message (their bodies empty, with content capture
// off, the default of both), where the package adds to counters. Both run
// with their defaults (the package in warn mode).
//
// Three paths, each a column of both tables; per round every path makes one
// call on each side (bare, instrumented), which goes first alternating:
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
// Estimators: per round and path, the ratio of the instrumented call's CPU
// to the bare call's. Table 1 gives the median R of the package's per-round
// ratios with its distribution-free 95% interval (order statistics), as
// bench/sdk-calls.ts does. Table 2 gives (R - 1) / (Rc - 1), Rc contrib's
// median ratio: the package's added CPU in units of contrib's, each as a
// share of its bare call, with a 95% percentile bootstrap interval (each
// side's rounds resampled on their own). Medians, so that a collector pause
// or a batch export that lands in a few calls moves them little; the median
// added microseconds per call are printed beside them.
//
// BENCH_ROUNDS (default 300) sets the rounds counted per instrumentation
// (after 10 not counted per process), BENCH_BLOCKS (default 3) the processes
// each. BENCH_LOGS=none leaves the logger provider out, as
// OTEL_LOGS_EXPORTER=none does in NodeSDK: contrib's log records then cost it
// next to nothing. The load average is printed with the tables: on a shared
// machine, state it with every figure.

import { spawn } from 'node:child_process';
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
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 3);
const WARM_UP = 10;
const BOOTSTRAP_RESAMPLES = 2_000;
const WITH_LOGS = process.env.BENCH_LOGS !== 'none';
/** Set in the measuring processes: the instrumentation this one measures, and its rounds. */
const ROLE_ENV = 'BENCH_PER_CALL_ROLE';
const ROUNDS_ENV = 'BENCH_PER_CALL_ROUNDS';

type Path = 'bound' | 'implicit re-sent' | 'implicit fresh';
const PATHS: readonly Path[] = ['bound', 'implicit re-sent', 'implicit fresh'];
type Role = 'package' | 'contrib';
const ROLES: readonly Role[] = ['package', 'contrib'];
type Side = 'bare' | 'instrumented';

/** What one measuring process sends back. */
interface Measured {
  cpu: Record<Path, Record<Side, number[]>>;
  /** The instrumented calls, and those the package checked (package) or contrib exported a span of (contrib). */
  calls: number;
  done: number;
  logRecords: number;
}

/** Installs the openai 6 fixture when it is missing or stale, as the test run's global setup does. */
async function ensureOpenAI6(): Promise<string> {
  const reason = staleReason(OPENAI_6);
  if (reason !== undefined) {
    console.log(`installing ${OPENAI_6} (${reason}) with npm ci: the openai 6 this bench loads`);
    await installProject(OPENAI_6);
  }
  const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, OPENAI_6, 'node_modules/openai/package.json'), 'utf8')) as {
    version: string;
  };
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

/** One measuring process: `rounds` rounds of the three paths, bare against `role`'s instrumented client. */
async function measure(role: Role, rounds: number): Promise<Measured> {
  // Exporters that drop what they are given (see the header), counting it.
  let spans = 0;
  let logRecords = 0;
  const dropSpans: SpanExporter = {
    export: (given, done) => {
      spans += given.length;
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const dropLogRecords: LogRecordExporter = {
    export: (given, done) => {
      logRecords += given.length;
      done({ code: 0 });
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans })] });
  trace.setGlobalTracerProvider(tracerProvider);
  const loggerProvider = new LoggerProvider({ processors: [new BatchLogRecordProcessor({ exporter: dropLogRecords })] });
  if (WITH_LOGS) logs.setGlobalLoggerProvider(loggerProvider);
  let contrib: OpenAIInstrumentation | undefined;
  const sides = await startSdkSides({
    openaiFrom: join(PACKAGE_ROOT, OPENAI_6),
    rival: role === 'contrib' ? (copy) => (contrib = patchWithContrib(copy)) : undefined,
  });
  const send: Record<Side, Send> = { bare: sides.bare, instrumented: role === 'contrib' ? sides.rival! : sides.instrumented };

  // The bound path: one request, its log bound on the package's side.
  const boundMessages = transcript(MESSAGES, 'ascii', 'bound');
  const boundLog = SessionLog.seed(boundMessages);
  const boundBody = bodyOf('chat', boundMessages);
  const OTHER_KEY = createContextKey('bench.other');
  const inActiveContext = <T>(fn: () => T): T => context.with(context.active().setValue(OTHER_KEY, true), fn);
  const boundCall = (side: Side): (() => Promise<unknown>) =>
    side === 'instrumented' && role === 'package'
      ? () => withSession(boundLog, () => send[side]('chat', boundBody))
      : () => inActiveContext(() => send[side]('chat', boundBody));

  // The implicit paths: a conversation per side, named apart.
  let conversation = 0;
  const talks = new Map<string, Conversation>();
  for (const path of PATHS.slice(1))
    for (const side of ['bare', 'instrumented'] as const)
      talks.set(`${path}/${side}`, new Conversation('chat', MESSAGES - RESTART, 'ascii', path.slice('implicit '.length) as Objects));

  const cpu: Measured['cpu'] = {
    bound: { bare: [], instrumented: [] },
    'implicit re-sent': { bare: [], instrumented: [] },
    'implicit fresh': { bare: [], instrumented: [] },
  };
  const checksBefore = await sides.checksRecorded();
  let calls = 0;
  for (let round = -WARM_UP, sent = RESTART; round < rounds; round++, sent++) {
    if (sent === RESTART) {
      sent = 0;
      for (const [key, talk] of talks) {
        const side = key.slice(key.indexOf('/') + 1) as Side;
        await send[side]('chat', talk.start(`${role} ${conversation++}`));
        if (side === 'instrumented') calls++;
      }
    }
    for (const path of PATHS) {
      const order: Side[] = round % 2 === 0 ? ['bare', 'instrumented'] : ['instrumented', 'bare'];
      const bodies = { bare: undefined as unknown, instrumented: undefined as unknown };
      if (path !== 'bound') for (const side of order) bodies[side] = talks.get(`${path}/${side}`)!.next();
      for (const side of order) {
        const used = await cpuOf(path === 'bound' ? boundCall(side) : () => send[side]('chat', bodies[side] as Record<string, unknown>));
        if (side === 'instrumented') calls++;
        if (round >= 0) cpu[path][side].push(used);
      }
    }
  }
  const checks = (await sides.checksRecorded()) - checksBefore;
  await Promise.all([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);
  contrib?.disable();
  await sides.close();
  await Promise.all([tracerProvider.shutdown(), loggerProvider.shutdown()]);
  return { cpu, calls, done: role === 'package' ? checks : spans, logRecords };
}

/** Runs one measuring process (this file again, with ROLE_ENV set) and takes what it sends back. */
function measureApart(role: Role, rounds: number): Promise<Measured> {
  return new Promise((resolveMeasured, rejectMeasured) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename], {
      env: { ...process.env, [ROLE_ENV]: role, [ROUNDS_ENV]: String(rounds) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let measured: Measured | undefined;
    child.on('message', (m) => (measured = m as Measured));
    child.on('error', rejectMeasured);
    child.on('exit', (code) => (measured ? resolveMeasured(measured) : rejectMeasured(new Error(`the ${role} process exited ${code}`))));
  });
}

/** 95% percentile bootstrap interval of `statistic`, given resampled index lists of each side's rounds (a fixed seed). */
function bootstrapInterval(
  sizes: readonly number[],
  statistic: (indices: ReadonlyArray<readonly number[]>) => number,
): { low: number; high: number } {
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const values: number[] = [];
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++)
    values.push(statistic(sizes.map((n) => Array.from({ length: n }, () => Math.floor(random() * n)))));
  values.sort((a, b) => a - b);
  return { low: values[Math.floor(BOOTSTRAP_RESAMPLES * 0.025)]!, high: values[Math.ceil(BOOTSTRAP_RESAMPLES * 0.975) - 1]! };
}

const verdict = (low: number, high: number, target: number) =>
  high <= target ? 'met' : low > target ? 'NOT met' : 'not decided at this precision';
const fixed = (x: number) => x.toFixed(3);

async function main(): Promise<void> {
  const openaiVersion = await ensureOpenAI6();
  const loadAtStart = loadavg()[0]!;
  const merged: Record<Role, Measured[]> = { package: [], contrib: [] };
  const perBlock = Math.ceil(ROUNDS / BLOCKS);
  for (let block = 0; block < BLOCKS; block++)
    for (const role of block % 2 === 0 ? ROLES : [...ROLES].reverse()) merged[role].push(await measureApart(role, perBlock));
  const loadAtEnd = loadavg()[0]!;

  const all = (role: Role, path: Path, side: Side) => merged[role].flatMap((m) => m.cpu[path][side]);
  const ratios = (role: Role, path: Path) => {
    const bare = all(role, path, 'bare');
    return all(role, path, 'instrumented').map((t, i) => t / bare[i]!);
  };
  const added = (role: Role, path: Path) => {
    const bare = all(role, path, 'bare');
    return median(all(role, path, 'instrumented').map((t, i) => t - bare[i]!));
  };
  const total = (role: Role, key: 'calls' | 'done' | 'logRecords') => merged[role].reduce((sum, m) => sum + m[key], 0);
  if (total('package', 'done') < total('package', 'calls') || total('contrib', 'done') < total('contrib', 'calls'))
    throw new Error('an instrumentation did not see every call: the figures would not measure it');
  if (WITH_LOGS && total('contrib', 'logRecords') === 0) throw new Error('contrib emitted no log record: the figures would not measure it');
  const rounds = all('package', 'bound', 'bare').length;
  console.log(
    `\nper-call CPU, ${openaiVersion}, Chat Completions, ${MESSAGES} messages, ${rounds} rounds per instrumentation in ${BLOCKS} processes each, ` +
      `load average ${loadAtStart.toFixed(1)} at the start, ${loadAtEnd.toFixed(1)} at the end; the package checked ${total('package', 'done')} ` +
      `of its ${total('package', 'calls')} calls; contrib made ${total('contrib', 'done')} spans of ${total('contrib', 'calls')} calls, ` +
      (WITH_LOGS ? `${total('contrib', 'logRecords')} log records` : 'no logger provider (BENCH_LOGS=none)'),
  );

  console.log('\n1. per call over the bare loopback call (median of per-round ratios, 95% interval; target <= 1.05)');
  console.table(
    PATHS.map((path) => {
      const r = medianInterval(ratios('package', path));
      return {
        path,
        'bare µs': median(all('package', path, 'bare')).toFixed(0),
        'package µs': median(all('package', path, 'instrumented')).toFixed(0),
        'added µs': added('package', path).toFixed(0),
        'package / bare': `${fixed(r.mid)} (${fixed(r.low)} to ${fixed(r.high)})`,
        target: verdict(r.low, r.high, 1.05),
      };
    }),
  );

  console.log(
    "\n2. against @opentelemetry/instrumentation-openai 0.22: the package's added CPU / contrib's (95% bootstrap interval; target <= 0.75)",
  );
  console.table(
    PATHS.map((path) => {
      const pkg = ratios('package', path);
      const con = ratios('contrib', path);
      const share = ([p, c]: ReadonlyArray<readonly number[]>) => {
        const excess = median(c!.map((i) => con[i]!)) - 1;
        return excess > 0 ? (median(p!.map((i) => pkg[i]!)) - 1) / excess : Infinity;
      };
      const { low, high } = bootstrapInterval([pkg.length, con.length], share);
      const contribRatio = medianInterval(con);
      return {
        path,
        'contrib bare µs': median(all('contrib', path, 'bare')).toFixed(0),
        'contrib added µs': added('contrib', path).toFixed(0),
        'contrib / bare': `${fixed(contribRatio.mid)} (${fixed(contribRatio.low)} to ${fixed(contribRatio.high)})`,
        'package / contrib': `${fixed(share([pkg.map((_, i) => i), con.map((_, i) => i)]))} (${fixed(low)} to ${fixed(high)})`,
        target: verdict(low, high, 0.75),
      };
    }),
  );
}

const role = process.env[ROLE_ENV] as Role | undefined;
if (role === undefined) void main();
else
  void measure(role, Number(process.env[ROUNDS_ENV])).then((measured) => {
    process.send!(measured);
    process.disconnect();
  });
