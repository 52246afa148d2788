// The OTLP/HTTP exporters time a request out with `request.setTimeout`, an
// idle timeout that every byte received resets: a collector that answers its
// headers and then trickles its body keeps the socket, and so a finished app,
// alive for as long as it trickles. The agent built here gives each
// connection a hard deadline instead, which destroys it.

import type { Agent, ClientRequestArgs } from 'node:http';
import type { Duplex } from 'node:stream';

/** What the OTLP/HTTP exporters accept as `httpAgentOptions`: an agent per URL protocol. */
export type AgentFactory = (protocol: string) => Agent;

/**
 * Agents whose every connection is destroyed `deadlineMs` after it is opened.
 * Without keep-alive, a connection carries one request, so the deadline bounds
 * each request however the collector answers. The error has no network code,
 * so the exporter does not retry past it.
 */
export function deadlineAgentFactory(deadlineMs: number): AgentFactory {
  return (protocol) => {
    // Loaded when the first export is sent, after the app's instrumentations patched http.
    const { Agent: Base } = (protocol === 'https:' ? require('node:https') : require('node:http')) as typeof import('node:http');
    class DeadlineAgent extends Base {
      override createConnection(options: ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void) {
        const socket = super.createConnection(options, callback);
        if (socket) armDeadline(socket, deadlineMs);
        return socket;
      }
    }
    return new DeadlineAgent({ keepAlive: false });
  };
}

function armDeadline(socket: Duplex, deadlineMs: number): void {
  // Unref'd: a socket still open holds the process anyway, and a closed one must not.
  const timer = setTimeout(() => socket.destroy(new Error(`OTLP export exceeded its ${deadlineMs} ms deadline`)), deadlineMs).unref();
  socket.once('close', () => clearTimeout(timer));
}
