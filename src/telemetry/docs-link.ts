// Where a violation's explanation lives: docs/behaviour.md on the package's
// repository (package.json `homepage`, kept in step by test/violation-line.test.ts).

/** docs/behaviour.md on the package's repository. */
export const BEHAVIOUR_DOCS_URL = 'https://github.com/nous-session-invariant/nous-session-invariant/blob/main/docs/behaviour.md';

/** The docs section for a violation kind: each kind has a heading of its own name in §6.5. */
export function docsLinkFor(kind: string): string {
  return `${BEHAVIOUR_DOCS_URL}#${kind}`;
}
