// The OpenAI Agents SDK: the runner's model call, patched for the turn
// recorder (the `openai` integration checks the requests themselves).

import { InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import { rewrap, unwrapIfWrapped, type Integration, type Patcher } from '../../instrumentation/integration';
import { isSupportedVersion } from '../../instrumentation/supported-version';
import { wrapGetResponse, wrapGetStreamed } from './model-call';

export const AGENTS_CORE_MODULE = '@openai/agents-core';
/** The runner's model call lives in an internal file: pinned to the minor tested. */
export const AGENTS_CORE_SUPPORTED = '>=0.20.0 <0.21.0';

const MODEL_CALL_FILE = 'dist/runner/modelRetry';
const WRAPPERS = [
  ['getResponseWithRetry', wrapGetResponse],
  ['getStreamedResponseWithRetry', wrapGetStreamed],
] as const;

function definition(patcher: Patcher): InstrumentationNodeModuleDefinition {
  // File hooks name the file with its package, in both the CommonJS and the ESM copy.
  const files = ['js', 'mjs'].map(
    (extension) =>
      new InstrumentationNodeModuleFile(
        `${AGENTS_CORE_MODULE}/${MODEL_CALL_FILE}.${extension}`,
        [AGENTS_CORE_SUPPORTED],
        (exports: Record<string, unknown>) => {
          for (const [name, wrap] of WRAPPERS) if (typeof exports[name] === 'function') rewrap(patcher, exports, name, wrap as (original: never) => unknown);
          return exports;
        },
        (exports?: Record<string, unknown>) => {
          for (const [name] of WRAPPERS) unwrapIfWrapped(patcher, exports, name);
        },
      ),
  );
  return new InstrumentationNodeModuleDefinition(
    AGENTS_CORE_MODULE,
    ['*'],
    (exports: unknown, version?: string) => {
      isSupportedVersion(AGENTS_CORE_MODULE, version, AGENTS_CORE_SUPPORTED, 'its turns are not recorded into the log');
      return exports;
    },
    undefined,
    files,
  );
}

export const openaiAgentsIntegration: Integration = {
  name: AGENTS_CORE_MODULE,
  esmInclude: [AGENTS_CORE_MODULE, new RegExp(`/@openai/agents-core/${MODEL_CALL_FILE}\\.mjs$`)],
  definitions: (patcher) => [definition(patcher)],
};
