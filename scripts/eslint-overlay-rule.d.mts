// The type of the package's own ESLint plugin (eslint-overlay-rule.mjs), for the test that lints with it.
import type { ESLint } from 'eslint';

declare const plugin: ESLint.Plugin;
export default plugin;
