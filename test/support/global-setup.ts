// Vitest's global setup: installs each fixture project that is missing or
// stale against its lockfile (npm ci --prefix, two at a time), one line each,
// before any suite loads its packages. A fresh clone then needs nothing but
// `npm ci` before `npm test`; an up-to-date tree costs a few file reads.

import { fixtureProjects, installProject, staleReason } from './fixture-projects';

const CONCURRENT_INSTALLS = 2;

export default async function setup(): Promise<void> {
  const pending = fixtureProjects()
    .map((project) => ({ project, reason: staleReason(project) }))
    .filter((entry): entry is { project: string; reason: string } => entry.reason !== undefined);
  if (pending.length === 0) return;
  const started = Date.now();
  const failures: Error[] = [];
  const next = async (): Promise<void> => {
    for (let entry = pending.shift(); entry !== undefined; entry = pending.shift()) {
      const at = Date.now();
      try {
        await installProject(entry.project);
        log(`installed ${entry.project} (${entry.reason}) with npm ci in ${seconds(Date.now() - at)}`);
      } catch (error) {
        failures.push(error as Error);
      }
    }
  };
  const count = pending.length;
  log(`installing ${count} fixture project${count === 1 ? '' : 's'} the suites load packages from`);
  await Promise.all(Array.from({ length: CONCURRENT_INSTALLS }, next));
  // A fixture npm cannot install is not a test result: stop with npm's own words.
  if (failures.length > 0) throw new Error(failures.map((failure) => failure.message).join('\n\n'));
  log(`fixture projects ready in ${seconds(Date.now() - started)}`);
}

function log(line: string): void {
  process.stdout.write(`[fixtures] ${line}\n`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
