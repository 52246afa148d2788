// The violation kinds as the viewer shows them, with their colours: the one
// list the page's styles (page/css.ts), its script (through the markup,
// page/html.ts) and the layout read. Keyed by the kinds of
// invariant/violation.ts, so a kind added there does not compile here until it
// has a colour. In legend order.

import type { ReconstructionKind, ViolationKind } from '../invariant/violation';

/** Each violation kind and its colour. */
export const KIND_COLOURS: Readonly<Record<ViolationKind, string>> = {
  missing_message: '#dc2626',
  extra_message: '#d97706',
  order: '#7c3aed',
  orphaned_tool_result: '#0891b2',
  invalid_request: '#4b5563',
};

/** The kinds a request that does not reconstruct its log has: the ones drawn as two columns. */
const RECONSTRUCTION_KINDS: Readonly<Record<ReconstructionKind, true>> = { missing_message: true, extra_message: true, order: true };

/** Whether `kind` is a reconstruction kind (`missing_message`, `extra_message`, `order`). */
export function isReconstructionKind(kind: string): kind is ReconstructionKind {
  return Object.hasOwn(RECONSTRUCTION_KINDS, kind);
}
