// The OpenAI Agents SDK: the runner's model call, its input filter and its
// handoffs (and their input filters), patched for the turn recorder (the `openai` integration checks the
// requests themselves), and the SDK's trace as the run a request belongs to.
// The wrappers and the recorder load when the SDK does: a process that never
// requires it never loads them (docs/performance.md "Cold start").

import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { moduleDefinition, moduleFile } from '../module-definition';
import { rewrap, unwrapIfWrapped, type Integration, type Patcher } from '../integration';
import { isSupportedVersion } from '../supported-version';
import { addRunResolver } from '../../request-path/run';
import { lazyPart } from '../../lazy-part';
import { AGENTS_CORE_MODULE, AGENTS_CORE_SUPPORTED } from './supported';

type ModelCall = typeof import('./model-call');
type TurnRecorder = typeof import('./turn-recorder');
/* eslint-disable @typescript-eslint/no-require-imports -- loaded when the SDK is, not at start-up */
const modelCall = lazyPart('openai-agents/model-call', () => require('./model-call') as ModelCall);
const turnRecorder = lazyPart('openai-agents/turn-recorder', () => require('./turn-recorder') as TurnRecorder);
/* eslint-enable @typescript-eslint/no-require-imports */
/** Set once the SDK was patched: disabling before that has no recorder to stop, and loads none. */
let recorderLoaded = false;

/** Each patched file, its functions, and the model-call.ts wrapper of each. */
const PATCHED_FILES: ReadonlyArray<[file: string, wrappers: ReadonlyArray<[name: string, wrapper: keyof ModelCall]>]> = [
  [
    'dist/runner/modelRetry',
    [
      ['getResponseWithRetry', 'wrapGetResponse'],
      ['getStreamedResponseWithRetry', 'wrapGetStreamed'],
    ],
  ],
  ['dist/runner/conversation', [['applyCallModelInputFilter', 'wrapApplyFilter']]],
  ['dist/runner/toolExecution', [['executeHandoffCalls', 'wrapExecuteHandoffCalls']]],
];

function definition(patcher: Patcher): InstrumentationModuleDefinition {
  // File hooks name the file with its package, in both the CommonJS and the ESM copy.
  const files = PATCHED_FILES.flatMap(([file, wrappers]) =>
    ['js', 'mjs'].map((extension) =>
      moduleFile(
        `${AGENTS_CORE_MODULE}/${file}.${extension}`,
        [AGENTS_CORE_SUPPORTED],
        (exports: Record<string, unknown>) => {
          for (const [name, wrapper] of wrappers) {
            if (typeof exports[name] === 'function') rewrap(patcher, exports, name, modelCall()[wrapper] as (original: never) => unknown);
          }
          return exports;
        },
        (exports?: Record<string, unknown>) => {
          for (const [name] of wrappers) unwrapIfWrapped(patcher, exports, name);
        },
      ),
    ),
  );
  let removeResolver: (() => void) | undefined;
  return moduleDefinition(
    AGENTS_CORE_MODULE,
    ['*'],
    (exports: Record<string, unknown>, version?: string) => {
      const supported = isSupportedVersion(
        AGENTS_CORE_MODULE,
        version,
        AGENTS_CORE_SUPPORTED,
        'its runs are neither recorded nor checked against logs that back an AgentsLogSession (said once; requests with no bound log are still checked against the implicit log)',
      );
      recorderLoaded = true;
      turnRecorder().setRecording(supported, !supported);
      const getCurrentTrace = exports.getCurrentTrace;
      if (supported && typeof getCurrentTrace === 'function') {
        removeResolver?.();
        // A run's trace object (a no-op one when tracing is off) is one per `run()`.
        removeResolver = addRunResolver(() => (getCurrentTrace as () => object | null)());
      }
      return exports;
    },
    () => {
      removeResolver?.();
      removeResolver = undefined;
      if (recorderLoaded) turnRecorder().setRecording(false);
    },
    files,
  );
}

/**
 * The OpenAI Agents SDK (`@openai/agents-core`): patches the runner's model
 * call, its input filter and its handoffs for the turn recorder, and makes the SDK's current
 * trace the run a request belongs to (docs/behaviour.md §8.3). The requests
 * themselves are checked by the `openai` integration. Pinned to the tested
 * minors, because the patched functions live in internal files.
 */
export const openaiAgentsIntegration: Integration = {
  name: AGENTS_CORE_MODULE,
  esmInclude: [AGENTS_CORE_MODULE, ...PATCHED_FILES.map(([file]) => new RegExp(`/@openai/agents-core/${file}\\.mjs$`))],
  definitions: (patcher) => [definition(patcher)],
};
