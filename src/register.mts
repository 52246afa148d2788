// `node --import nous-session-invariant/register app.mjs`: the ESM loader
// hook goes in first, limited to the modules and files the integrations
// patch, then the same registration `--require` runs. Both load the one
// CommonJS build, so an app that mixes `require` and `import` shares one
// instrumentation, one session context and one set of counters.
import { createRequire, register } from 'node:module';

const require = createRequire(import.meta.url);
const { esmInclude } = require('./integrations/index.js') as typeof import('./integrations/index.js');
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: esmInclude() } });
// The registration below then knows the ESM hook is in place (see register/esm-entry.ts).
(globalThis as Record<symbol, unknown>)[Symbol.for('nous-session-invariant.esm-hook')] = true;
const registered = require('./register.js') as typeof import('./register.js');

/** See `shutdown` in register.ts: flushes and stops the telemetry `register` started, bounded in time. */
export const shutdown: () => Promise<void> = registered.shutdown;
