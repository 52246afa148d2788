// `node --require nous-session-invariant/register app.js`: enables the
// instrumentation and makes sure its telemetry goes somewhere (see
// register/start.ts). ESM apps use `--import`, which loads register.mts.
import { register } from './register/start';

register();
