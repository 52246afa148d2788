// The compose network's addresses turned into loopback ones, so the
// repository's config files run as they are on one machine: a service
// listening on 0.0.0.0:P listens on 127.0.0.1 at the port given for (itself, P),
// and a peer named by its compose service name, `jaeger:4317`, is reached on
// 127.0.0.1 at the port given for (jaeger, 4317). Nothing else in a file changes.

import { isScalar, parseDocument, visit, type Scalar } from 'yaml';

/** The loopback port that stands for a service's container port. */
export type PortFor = (service: string, containerPort: number) => number;

const ALL_INTERFACES = new Set(['', '0.0.0.0', 'localhost', '127.0.0.1']);

// host:port, alone or in a URL: "0.0.0.0:4317", "jaeger:4317", "http://prometheus:9090/x".
const ADDRESS = /^(\w+:\/\/)?([\w.-]*):(\d+)(\/.*)?$/;

export interface LoopbackFile {
  text: string;
  /** Whether any address was rewritten. */
  changed: boolean;
}

/**
 * Rewrites the addresses in one YAML config file of the service `self`;
 * `services` are the compose services it may name as peers.
 */
export function toLoopback(text: string, self: string, services: ReadonlySet<string>, portFor: PortFor): LoopbackFile {
  const document = parseDocument(text);
  let changed = false;
  const target = (host: string, port: number): number | undefined => {
    if (ALL_INTERFACES.has(host)) return portFor(self, port);
    if (services.has(host)) return portFor(host, port);
    return undefined;
  };
  visit(document, {
    Map(_, node) {
      // { host: 0.0.0.0, port: 8888 }, the form of the collector's telemetry readers.
      const host = node.get('host', true);
      const port = node.get('port', true);
      if (!isScalar(host) || !isScalar(port) || typeof port.value !== 'number') return;
      const mapped = target(String(host.value), port.value);
      if (mapped === undefined) return;
      host.value = '127.0.0.1';
      port.value = mapped;
      changed = true;
    },
    Scalar(_, node: Scalar) {
      if (typeof node.value !== 'string') return;
      const match = ADDRESS.exec(node.value);
      if (!match) return;
      const [, scheme = '', host = '', port, path = ''] = match;
      const mapped = target(host, Number(port));
      if (mapped === undefined) return;
      node.value = `${scheme}127.0.0.1:${mapped}${path}`;
      changed = true;
    },
  });
  return { text: changed ? document.toString() : text, changed };
}
