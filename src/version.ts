// Kept in step with package.json by test/package.test.ts.
/**
 * The npm package name. It names the tracer, the meter and the instrumentation
 * (the instrumentation scope), so the package's telemetry can be told apart
 * from the app's.
 */
export const PACKAGE_NAME = 'nous-session-invariant';
/**
 * The package version, reported as the instrumentation scope's version. A
 * literal, kept equal to package.json's `version` by test/package.test.ts.
 */
export const PACKAGE_VERSION = '0.1.0';
