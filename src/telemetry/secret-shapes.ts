// The one place that decides which secrets a preview never carries: the shapes
// of common credentials, replaced by `[redacted]` in every preview before the
// app's own `redact` hook sees it, unless switched off
// (NOUS_SESSION_INVARIANT_REDACT_SECRETS=false). Zero-code users cannot pass a
// hook, and an API key pasted into a chat is the likeliest secret a preview
// would otherwise export. The list is docs/behaviour.md §6.3's.

import { booleanFromEnv } from '../environment';

/** The environment variable that turns default secret redaction off (`false`). */
export const REDACT_SECRETS_ENV_VAR = 'NOUS_SESSION_INVARIANT_REDACT_SECRETS';

/** Whether the environment leaves secret redaction on (the default): read here only. */
export function redactSecretsFromEnv(): boolean {
  return booleanFromEnv(REDACT_SECRETS_ENV_VAR, true, 'secret redaction');
}

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Shapes replaced whole. Lengths are minimums, low enough that a secret cut
 * by the 120-character preview still shows its shape.
 */
const SHAPES: readonly RegExp[] = [
  // OpenAI (sk-..., sk-proj-...), Anthropic (sk-ant-...) and other `sk-` keys.
  /\bsk-[A-Za-z0-9_-]{12,}/g,
  // Stripe secret and restricted keys.
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{8,}/g,
  // GitHub tokens.
  /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})/g,
  // Google API keys.
  /\bAIza[0-9A-Za-z_-]{16,}/g,
  // AWS access key ids.
  /\b(?:AKIA|ASIA)[0-9A-Z]{12,}/g,
  // Slack tokens.
  /\bxox[abposr]-[A-Za-z0-9-]{8,}/g,
  // JSON Web Tokens (header and payload are base64url JSON objects).
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?/g,
  // A PEM private key: everything from its header on.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*/g,
];

/** Shapes whose first group (the scheme or the key's name) is kept, so the reader knows what was cut. */
const PREFIXED: readonly RegExp[] = [
  // Authorization header values.
  /\b((?:Bearer|Basic|Token)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  // `api_key=...`, `"password": "..."` and the like.
  /\b((?:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token|token)["']?\s*[:=]\s*["']?)[^\s"',;]{4,}/gi,
];

/** `text` with every secret shape replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const shape of SHAPES) out = out.replace(shape, REDACTED);
  for (const shape of PREFIXED) out = out.replace(shape, (_match, prefix: string) => `${prefix}${REDACTED}`);
  return out;
}
