// `node --require nous-session-invariant/register app.js`
// (ESM apps: `node --import nous-session-invariant/register app.mjs`).
import { register } from './register/start';

register();
