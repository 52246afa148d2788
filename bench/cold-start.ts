// Serverless cold start: what `--require nous-session-invariant/register`
// adds to a process's start, measured as whole processes, side by side in
// one run. Five sides, interleaved per round so that drift hits each alike:
// the app alone, the app starting a plain NodeSDK itself (the baseline), the
// same with an `InstrumentationBase` that patches nothing but hooks both SDKs
// (what the require hook of `@opentelemetry/instrumentation` costs any
// instrumentation of them, contrib's too: the floor of contrib's cost), the
// same NodeSDK given this package's instrumentation by the app (its own cost,
// target: at most contrib's), and the app under `register` (which starts the
// NodeSDK). The app loads
// `openai` and `@anthropic-ai/sdk` and makes a client of each
// (bench/cold-start-app.cjs); the exporters are set to none, so only start-up
// is measured. Figures: the median CPU and peak RSS of each side, and the
// paired per-round difference register - NodeSDK (target, issue 38: at most
// 50 ms of CPU and 10 MB), with the ratio (geometric mean, 95% interval),
// and the instrumentation's and the hook-only side's over NodeSDK. Last, the modules of
// this package the app loaded under `register`: the viewer, the shared store
// and the code of integrations whose SDK it never requires must not be among
// them (their hooks, which wait for the SDK, are). BENCH_ROUNDS sets the
// rounds (default 7). BENCH_BASELINE, the folder of another build of this
// package (its `dist/`, say the one at main, made as docs/performance.md
// says), adds it as a fifth side, so that a change's before and after are
// measured side by side in one run.

import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { median, pairedRatio } from './support';

const root = join(__dirname, '..');
const app = join(__dirname, 'cold-start-app.cjs');
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const env = {
  ...process.env,
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  NODE_OPTIONS: '',
};

interface Cost {
  cpuMs: number;
  maxRssKb: number;
  own?: string[];
}

function run(args: string[], extra: Record<string, string> = {}): Cost {
  const out = execFileSync(process.execPath, [...args, app], { cwd: root, env: { ...env, ...extra }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Cost;
}

const baseline = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE, 'dist', 'register.js') : undefined;
const BASELINE_SIDE = 'register, baseline';
const sides: Record<string, () => Cost> = {
  'app alone': () => run([]),
  'app + NodeSDK': () => run([], { START_SDK: '1' }),
  'app + SDK + hook': () => run([], { START_SDK: '1', HOOK_ONLY: '1' }),
  'app + SDK + this': () => run([], { START_SDK: '1', INSTRUMENT: '1' }),
  'app + register': () => run(['--require', 'nous-session-invariant/register']),
  ...(baseline ? { [BASELINE_SIDE]: () => run(['--require', baseline]) } : {}),
};
type Side = string;
const costs: Record<Side, Cost[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, [] as Cost[]]));

const loadAtStart = loadavg()[0]!;
run([]); // warm the file cache
for (let round = 0; round < rounds; round++) {
  for (const side of Object.keys(sides)) costs[side]!.push(sides[side]!());
}

console.log(
  `cold start, ${rounds} interleaved rounds per side (node ${process.version}; load average ${loadAtStart.toFixed(1)} at the start):`,
);
for (const side of Object.keys(sides)) {
  const cpu = median(costs[side]!.map((c) => c.cpuMs));
  const rss = median(costs[side]!.map((c) => c.maxRssKb)) / 1024;
  console.log(`  ${side.padEnd(18)} CPU ${cpu.toFixed(0).padStart(5)} ms   peak RSS ${rss.toFixed(1).padStart(6)} MB`);
}
/** The median of the per-round differences `over` - `base`, in ms of CPU and MB of peak RSS, and the CPU ratio. */
function difference(over: Side, base: Side): string {
  const a = costs[over]!;
  const b = costs[base]!;
  const cpu = median(a.map((c, i) => c.cpuMs - b[i]!.cpuMs));
  const rss = median(a.map((c, i) => c.maxRssKb - b[i]!.maxRssKb)) / 1024;
  const ratio = pairedRatio(
    a.map((c) => c.cpuMs),
    b.map((c) => c.cpuMs),
  );
  return `CPU ${cpu >= 0 ? '+' : ''}${cpu.toFixed(0)} ms (ratio ${ratio.text}), peak RSS ${rss >= 0 ? '+' : ''}${rss.toFixed(1)} MB`;
}
console.log(`  register over NodeSDK: ${difference('app + register', 'app + NodeSDK')} (targets: <= 50 ms, <= 10 MB)`);
console.log(`  this instrumentation, given to NodeSDK by the app: ${difference('app + SDK + this', 'app + NodeSDK')}`);
console.log(
  `  InstrumentationBase's hook alone (the floor of any contrib instrumentation of these SDKs): ${difference('app + SDK + hook', 'app + NodeSDK')}`,
);
console.log(
  `  register over this instrumentation given to NodeSDK (register's own share): ${difference('app + register', 'app + SDK + this')}`,
);
if (baseline) {
  console.log(`  the baseline build (${process.env.BENCH_BASELINE}) over NodeSDK: ${difference(BASELINE_SIDE, 'app + NodeSDK')}`);
  console.log(`  this build over the baseline: ${difference('app + register', BASELINE_SIDE)}`);
}
console.log(`  (medians of per-round differences; load average ${loadavg()[0]!.toFixed(1)} at the end)`);

const own = run(['--require', 'nous-session-invariant/register'], { BENCH_LIST: '1' }).own ?? [];
// The code of what the app never uses. The hooks that wait for an SDK are not in it (ai-sdk/integration,
// run-hook and telemetry-channel, openai-agents/integration and supported), nor the wire formats the fetch
// seam tells every provider's requests by (gemini/ among them: any client may call Gemini's API).
const unused = own.filter((path) =>
  /\/dist\/(viewer\/|request-path\/implicit\/(redis|shared-|bucket-writes|store-faults|late-report|unref-waits)|integrations\/(langchain\/|ai-sdk\/(?!integration|run-hook|telemetry-channel)|openai-agents\/(?!integration|supported)))/.test(
    path,
  ),
);
console.log(`  modules of this package loaded under register: ${own.length}; of parts the app does not use: ${unused.length}`);
for (const path of unused) console.log(`    ${path.slice(path.indexOf('/dist/') + 1)}`);
