// The system-prompt overlay, the first of the check's two exemptions, decided
// in one place: the bound check, the implicit log (on fingerprints), the
// LangChain recorder and the session view's index offset all ask this
// function. ESLint keeps it so (scripts/eslint-overlay-rule.mjs): no other
// module of src/ may choose 0 or 1 on a system message.

/**
 * 1 when the request leads with a system message and the log does not: that
 * message is the overlay, compared with nothing, and the log lines up with
 * the request from the next slot. 0 otherwise (a system message the log also
 * leads with is compared like any other, content exempt).
 */
export function overlaySlotOf(requestLeadsWithSystem: boolean, logLeadsWithSystem: boolean): 0 | 1 {
  return requestLeadsWithSystem && !logLeadsWithSystem ? 1 : 0;
}
