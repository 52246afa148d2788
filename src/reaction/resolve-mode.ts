// Which mode is in force: the setting, else the environment, else the
// default. The one place that decides it.

import { readEnv } from '../environment';
import { describe } from '../log/events';
import { DEFAULT_MODE, MODE_ENV_VAR, MODES, isMode, type Mode } from '../invariant/mode';
import { warnOnce } from '../warnings';

/**
 * The mode for `value` (a setting); when it is absent, the one named by
 * `NOUS_SESSION_INVARIANT`; when that is absent too, `warn`. A value that is
 * not a mode (case and surrounding blanks aside) falls back to `warn` and
 * warns once per process: a typo in one setting must not take down every run.
 * Never throws.
 */
export function resolveMode(value?: unknown): Mode {
  if (isMode(value)) return value; // already a mode: what the request path passes on every request
  try {
    const raw = value === undefined || value === null ? readEnv(MODE_ENV_VAR) : value;
    if (raw === undefined || raw === '') return DEFAULT_MODE;
    const normalized = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
    if (isMode(normalized)) return normalized;
    const source = value === undefined || value === null ? `${MODE_ENV_VAR}=${describe(raw)}` : `mode ${describe(raw)}`;
    warnOnce('invalid-mode', `${source} is not a mode (${MODES.join(', ')}); using "${DEFAULT_MODE}"`);
  } catch {
    // An unreadable value: the default, below.
  }
  return DEFAULT_MODE;
}
