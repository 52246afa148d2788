// `npm run stack`: the observability stack of docker/compose.yaml without
// Docker, on loopback, until Ctrl-C. Build the Collector and Jaeger first
// with `npm run stack:build` (Go), and install Prometheus and Alertmanager
// (Debian: apt-get install prometheus prometheus-alertmanager); the script
// builds the package, whose violation viewer the stack runs. With
// redis-server installed (apt-get install redis-server) it starts one too, the
// implicit log's shared store (docs/shared-store.md).

import { missingPrograms, startStack } from './native';
import { startStackRedis } from './redis';

async function main(): Promise<void> {
  const missing = missingPrograms();
  if (missing.length > 0) {
    console.error(`The native stack needs:\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  const stack = await startStack({ ports: 'published' });
  const redis = await startStackRedis();
  console.log(
    [
      'The stack is up on loopback (Ctrl-C stops it):',
      `  OTLP          OTEL_EXPORTER_OTLP_ENDPOINT=${stack.url('collector', 4318)}`,
      `  Viewer        ${stack.url('viewer', 4320)} (violations, live; docs/viewer.md)`,
      `  Jaeger        ${stack.url('jaeger', 16686)} (the query API; the UI is in the image)`,
      `  Prometheus    ${stack.url('prometheus', 9090)}`,
      `  Alertmanager  ${stack.url('alertmanager', 9093)}`,
      redis === undefined
        ? '  Redis         not installed (apt-get install redis-server): no shared conversation store'
        : `  Redis         NOUS_SESSION_INVARIANT_STORE=${redis.url} (the shared conversation store; docs/shared-store.md)`,
      `  configs and logs in ${stack.dir}`,
    ].join('\n'),
  );
  const stop = () => {
    redis?.stop();
    void stack.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
