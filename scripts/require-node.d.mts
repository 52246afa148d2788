/** What is wrong with running the npm scripts on Node `version` on `platform`-`arch` against `engines`, or undefined when nothing is. */
export function nodeVersionProblem(version: string, platform: string, arch: string, engines: string): string | undefined;
