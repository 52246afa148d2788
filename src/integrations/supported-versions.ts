// The one table of the SDK versions the package claims, and of the projects
// that test them: each range here is the one its integration accepts (the
// provider files and openai-agents/supported.ts read it from here), the one
// the README and docs/zero-code.md state, and one CI has run at both ends.
// test/supported-versions.test.ts fails when any of them drifts: a range
// claimed is a range tested, in the spirit of contrib's test-all-versions.

/** What CI runs for one package: a project under test/versions/, or the repository's own devDependency. */
export interface TestedVersion {
  /** The project's folder under test/versions/, or `devDependency` for the repository's own. */
  project: string;
  /** Why it is there: the lowest of the range, a line in between, or a version outside the range. */
  role: 'lowest' | 'line' | 'highest' | 'outside';
}

export interface SupportedPackage {
  /** The npm package. */
  module: string;
  /** The package the projects pin, when not `module` itself (the Agents SDK ships its core in `@openai/agents`). */
  pinnedAs?: string;
  /** The semver range claimed. */
  range: string;
  /**
   * `exact`: the integration checks the version at run time, so the lowest
   * version of the range is pinned exactly. `majors`: no check at run time,
   * the claim is by major, and each major of the range is tested.
   */
  claim: 'exact' | 'majors';
  tested: readonly TestedVersion[];
}

/** Every package whose versions the package claims, by its key in the docs. */
export const SUPPORTED_VERSIONS = {
  openai: {
    module: 'openai',
    range: '>=6.0.0 <8',
    claim: 'exact',
    tested: [
      { project: 'openai-6.0', role: 'lowest' },
      { project: 'devDependency', role: 'highest' },
    ],
  },
  anthropic: {
    module: '@anthropic-ai/sdk',
    range: '>=0.12.4 <2',
    claim: 'exact',
    tested: [
      { project: 'anthropic-0.12.4', role: 'lowest' },
      { project: 'anthropic-0.122-langchain', role: 'line' },
      { project: 'devDependency', role: 'highest' },
    ],
  },
  agents: {
    module: '@openai/agents-core',
    pinnedAs: '@openai/agents',
    range: '>=0.19.0 <0.21.0',
    claim: 'exact',
    tested: [
      { project: 'agents-0.18', role: 'outside' },
      { project: 'agents-0.19', role: 'lowest' },
      { project: 'devDependency', role: 'highest' },
    ],
  },
  aiSdk: {
    module: 'ai',
    range: '>=5.0.0 <8',
    claim: 'majors',
    tested: [
      { project: 'ai-sdk-5', role: 'lowest' },
      { project: 'ai-sdk-6', role: 'line' },
      { project: 'devDependency', role: 'highest' },
    ],
  },
  bedrock: {
    module: '@aws-sdk/client-bedrock-runtime',
    range: '>=3.587.0 <4',
    claim: 'exact',
    tested: [
      { project: 'bedrock-3.587', role: 'lowest' },
      { project: 'bedrock-3.1178', role: 'highest' },
    ],
  },
} as const satisfies Record<string, SupportedPackage>;
