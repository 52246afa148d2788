// Serverless cold start: what `--require nous-session-invariant/register`
// adds to a process's start, measured as whole processes, side by side in
// one run. Three sides, interleaved per round so that drift hits each alike:
// the app alone, the app starting a plain NodeSDK itself (the baseline), and
// the app under `register` (which starts the NodeSDK). The app loads
// `openai` and `@anthropic-ai/sdk` and makes a client of each
// (bench/cold-start-app.cjs); the exporters are set to none, so only start-up
// is measured. Figures: the median CPU and peak RSS of each side, and the
// paired per-round difference register - NodeSDK (target, issue 38: at most
// 50 ms of CPU and 10 MB), with the ratio (geometric mean, 95% interval).
// Last, the modules of this package the app loaded under `register`: the
// viewer, the shared store and the integrations of SDKs it never requires
// must not be among them. BENCH_ROUNDS sets the rounds (default 7).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
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

const sides = {
  'app alone': () => run([]),
  'app + NodeSDK': () => run([], { START_SDK: '1' }),
  'app + register': () => run(['--require', 'nous-session-invariant/register']),
};
type Side = keyof typeof sides;
const costs = Object.fromEntries(Object.keys(sides).map((side) => [side, [] as Cost[]])) as Record<Side, Cost[]>;

run([]); // warm the file cache
for (let round = 0; round < rounds; round++) {
  for (const side of Object.keys(sides) as Side[]) costs[side].push(sides[side]());
}

console.log(`cold start, ${rounds} interleaved rounds per side (node ${process.version}):`);
for (const side of Object.keys(sides) as Side[]) {
  const cpu = median(costs[side].map((c) => c.cpuMs));
  const rss = median(costs[side].map((c) => c.maxRssKb)) / 1024;
  console.log(`  ${side.padEnd(16)} CPU ${cpu.toFixed(0).padStart(5)} ms   peak RSS ${rss.toFixed(1).padStart(6)} MB`);
}
const sdk = costs['app + NodeSDK'];
const reg = costs['app + register'];
const cpuDiff = median(reg.map((c, i) => c.cpuMs - sdk[i]!.cpuMs));
const rssDiff = median(reg.map((c, i) => c.maxRssKb - sdk[i]!.maxRssKb)) / 1024;
const ratio = pairedRatio(
  reg.map((c) => c.cpuMs),
  sdk.map((c) => c.cpuMs),
);
console.log(
  `  register over NodeSDK: CPU +${cpuDiff.toFixed(0)} ms (median of per-round differences; target <= 50), ratio ${ratio.text}; ` +
    `peak RSS +${rssDiff.toFixed(1)} MB (target <= 10)`,
);

const own = run(['--require', 'nous-session-invariant/register'], { BENCH_LIST: '1' }).own ?? [];
const unused = own.filter((path) =>
  /\/dist\/(viewer|request-path\/implicit\/redis|integrations\/(ai-sdk|gemini|langchain|openai-agents))/.test(path),
);
console.log(`  modules of this package loaded under register: ${own.length}; of parts the app does not use: ${unused.length}`);
for (const path of unused) console.log(`    ${path.slice(path.indexOf('/dist/') + 1)}`);
