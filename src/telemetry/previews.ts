// What content capture lets out: each preview with secret shapes redacted
// (unless switched off), through the app's redact hook, then cut to the
// configured length. Applied once per violation, before the
// span event, the warning line and strict mode's error see it.

import type { MessageSketch } from '../invariant/sketch';
import type { ViolationDetails } from '../invariant/violation';
import { redactSecrets } from './secret-shapes';

/** The app's say over previews (config `redact` and `previewLength`). */
export interface PreviewPolicy {
  /** Rewrites a preview before it leaves the process; a throw drops that preview. */
  redact?: ((text: string) => string) | undefined;
  /** Characters kept of each preview, after `redact` (at most the 120 a sketch holds). */
  previewLength?: number | undefined;
  /** Replace common secret shapes (`secret-shapes.ts`) before `redact`; default true. */
  redactSecrets?: boolean | undefined;
}

/**
 * `violation` with every preview passed through `policy`: secret shapes
 * replaced (unless `redactSecrets` is false), then the app's hook, then the
 * length. A redact hook that
 * throws or returns a non-string drops that preview (`null`) and calls
 * `onError` once, so a broken hook can never let raw text out.
 */
export function applyPreviewPolicy(
  violation: ViolationDetails,
  policy: PreviewPolicy,
  onError: (error: unknown) => void,
): ViolationDetails {
  const secrets = policy.redactSecrets !== false;
  if (!('extra' in violation) || (!secrets && policy.redact === undefined && policy.previewLength === undefined)) return violation;
  let failed = false;
  const limit = validLength(policy.previewLength);
  const apply = (s: MessageSketch): MessageSketch => {
    if (!('preview' in s) || s.preview === null) return s;
    let text: string | null = secrets ? redactSecrets(s.preview) : s.preview;
    if (policy.redact !== undefined) {
      try {
        const out: unknown = policy.redact(text);
        if (typeof out !== 'string') throw new TypeError(`redact returned ${typeof out}, not a string`);
        text = out;
      } catch (error) {
        if (!failed) onError(error);
        failed = true;
        text = null;
      }
    }
    if (text !== null && limit !== undefined) text = Array.from(text).slice(0, limit).join('');
    return { ...s, preview: text };
  };
  return { ...violation, extra: violation.extra.map(apply), missing: violation.missing.map(apply) };
}

function validLength(length: number | undefined): number | undefined {
  return typeof length === 'number' && Number.isFinite(length) && length >= 0 ? Math.floor(length) : undefined;
}
