// The layers of src/, checked by `npm run lint:layers`. A layer imports only
// from the layers below it (and from itself); no module takes part in an
// import circle; model/, log/ and invariant/ import no OpenTelemetry package.
// Type-only imports count like any other: a type that has to be imported
// upward is a type in the wrong place.
//
// From the ground up:
//   base          result.ts, version.ts, warnings.ts, lazy-part.ts,
//                 environment.ts: the result shape, the package's name and
//                 version, its warning sink, the loading of parts on demand,
//                 its reading of environment variables
//   model/        the canonical message model
//   log/          the append-only session log and its fold
//   invariant/    the check itself: pure, no telemetry
//   telemetry/    what a check records: spans, counters, log events
//   reaction/     acting on a check's result by the mode (record, warn, throw)
//   reading/      reading provider shapes into canonical messages; the
//                 request path's memo of entries already read
//   history/      the session operations (view, compaction, fork, recovery)
//   request-path/ the one request-check path every seam hands requests to
//   integrations/ the providers and frameworks, and the transport seams
//   instrumentation/ the OpenTelemetry instrumentation that enables them
//   register/     `--require nous-session-invariant/register`
//   entries       src/*.ts: the public entry points; viewer/, the bin

const LAYERS = [
  ['base', '^src/(result|version|warnings|lazy-part|environment)[.]ts$'],
  ['model', '^src/model/'],
  ['log', '^src/log/'],
  ['invariant', '^src/invariant/'],
  ['telemetry', '^src/telemetry/'],
  ['reaction', '^src/reaction/'],
  ['reading', '^src/reading/'],
  ['history', '^src/history/'],
  ['request-path', '^src/request-path/'],
  ['integrations', '^src/integrations/'],
  ['instrumentation', '^src/instrumentation/'],
  ['register', '^src/register/'],
  ['entries', '^src/(viewer/|(?!(result|version|warnings|lazy-part|environment)[.]ts$)[^/]+[.]m?ts$)'],
];

// One rule per layer: nothing in it may import any layer above it.
const upward = LAYERS.slice(0, -1).map(([name, path], index) => ({
  name: `${name}-imports-upward`,
  severity: 'error',
  comment: `${name} sits below ${LAYERS.slice(index + 1)
    .map(([above]) => above)
    .join(', ')}: it may not import them`,
  from: { path },
  to: { path: LAYERS.slice(index + 1).map(([, above]) => above) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'modules that import each other, directly or through others',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'outside-the-layers',
      severity: 'error',
      comment: 'a module of src/ that imports anything belongs to a layer: a new folder is placed in LAYERS first',
      from: { path: '^src/', pathNot: LAYERS.map(([, path]) => path) },
      to: {},
    },
    {
      name: 'pure-core',
      severity: 'error',
      comment: 'the message model, the log and the check know nothing of OpenTelemetry: recording is for telemetry/ and reaction/',
      from: { path: '^src/(model|log|invariant)/' },
      to: { path: '@opentelemetry/' },
    },
    {
      name: 'invariant-reads-no-environment',
      severity: 'error',
      comment:
        'the check is pure: its callers read the environment (environment.ts) and hand it what it says (eslint forbids process.env there too)',
      from: { path: '^src/invariant/' },
      to: { path: ['^src/environment[.]ts$', '^(node:)?process$'] },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
  },
};
