// `nous-session-invariant view [options]`: the command line of the viewer.

import { parseArgs } from 'node:util';
import { DEFAULT_MAX_BODY_BYTES } from './body';
import { DEFAULT_CAPACITY } from './store';
import { DEFAULT_HOST, DEFAULT_OTLP_PORT, DEFAULT_PORT, startViewer, type RunningViewer } from './viewer';

export const USAGE = `Usage: nous-session-invariant view [options]

Receives OTLP/HTTP (traces and logs, JSON or protobuf) and shows the session
invariant violations in them on a local page, live.

  --port N            the page's port (default ${DEFAULT_PORT})
  --otlp-port N       the OTLP/HTTP port (default ${DEFAULT_OTLP_PORT}); point the app at it with
                      OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:${DEFAULT_OTLP_PORT}
  --host ADDRESS      where both listen (default ${DEFAULT_HOST}, loopback only); 0.0.0.0 listens
                      on every interface: anyone who can reach it can read the violations
  --jaeger URL        link each violation to its trace at URL/trace/<traceId>
  --max-violations N  how many violations to keep, the oldest dropped first (default ${DEFAULT_CAPACITY})
  --max-body-bytes N  the largest OTLP payload accepted, after gunzip (default ${DEFAULT_MAX_BODY_BYTES});
                      larger ones get 413
  -h, --help          this text
`;

/** Runs the command; resolves with the running viewer, or undefined when it only printed help or an error. */
export async function main(argv: readonly string[], out: NodeJS.WritableStream = process.stdout): Promise<RunningViewer | undefined> {
  const [command, ...rest] = argv;
  if (command === '-h' || command === '--help' || command === 'help') return void out.write(USAGE);
  if (command !== 'view') return fail(`unknown command ${command === undefined ? '(none)' : JSON.stringify(command)}`);
  let values;
  try {
    values = parseArgs({
      args: rest,
      options: {
        port: { type: 'string' },
        'otlp-port': { type: 'string' },
        host: { type: 'string' },
        jaeger: { type: 'string' },
        'max-violations': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
  if (values.help) return void out.write(USAGE);
  const port = integer(values.port, DEFAULT_PORT, 0, 65535, '--port');
  const otlpPort = integer(values['otlp-port'], DEFAULT_OTLP_PORT, 0, 65535, '--otlp-port');
  const maxViolations = integer(values['max-violations'], DEFAULT_CAPACITY, 1, 10_000_000, '--max-violations');
  const maxBodyBytes = integer(values['max-body-bytes'], DEFAULT_MAX_BODY_BYTES, 1, 2 ** 31 - 1, '--max-body-bytes');
  if (typeof port === 'string') return fail(port);
  if (typeof otlpPort === 'string') return fail(otlpPort);
  if (typeof maxViolations === 'string') return fail(maxViolations);
  if (typeof maxBodyBytes === 'string') return fail(maxBodyBytes);
  if (values.jaeger !== undefined && !/^https?:\/\/./i.test(values.jaeger)) return fail('--jaeger must be an http(s) URL');
  const viewer = await startViewer({
    host: values.host ?? DEFAULT_HOST,
    port,
    otlpPort,
    jaeger: values.jaeger,
    maxViolations,
    maxBodyBytes,
  });
  out.write(`nous-session-invariant viewer: ${viewer.pageUrl}\n`);
  out.write(`receiving OTLP/HTTP at ${viewer.otlpUrl} (set OTEL_EXPORTER_OTLP_ENDPOINT=${viewer.otlpUrl})\n`);
  return viewer;
}

/** A whole number in [min, max], the default when absent, or the error to print. */
function integer(value: string | undefined, fallback: number, min: number, max: number, flag: string): number | string {
  if (value === undefined) return fallback;
  const n = Number(value);
  return /^\d+$/.test(value) && n >= min && n <= max ? n : `${flag} must be a whole number from ${min} to ${max}`;
}

function fail(message: string): undefined {
  process.stderr.write(`nous-session-invariant: ${message}\n\n${USAGE}`);
  process.exitCode = 2;
  return undefined;
}
