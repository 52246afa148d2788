// The Bedrock agent of test/fixtures/zero-code/bedrock.cjs in an ES module
// app (run with --import), here so that it imports the SDK by its name, as
// an app does: the package has no export map, so Node loads its CommonJS
// build for the import.
import * as sdk from '@aws-sdk/client-bedrock-runtime';
import { createRequire } from 'node:module';

globalThis.bedrockSdk = sdk;
createRequire(import.meta.url)('../../fixtures/zero-code/bedrock.cjs');
