// Reads docker/compose.yaml: what each service runs, which repository files it
// mounts where, and which ports it publishes. The native stack starts its
// services from this, so the stack is described once, for Docker and without.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

export const DOCKER_DIR = resolve(__dirname, '..', 'docker');

/** A repository file or folder a service mounts. */
export interface Mount {
  /** Absolute path in the repository. */
  source: string;
  /** Path inside the container. */
  target: string;
}

export interface ComposeService {
  name: string;
  image: string;
  /** The command's arguments, interpolated the way compose does. */
  args: string[];
  mounts: Mount[];
  /** Container ports published on the host, with the host port compose gives each. */
  published: Map<number, number>;
}

interface RawService {
  image: string;
  command?: string | string[];
  volumes?: string[];
  ports?: string[];
}

/**
 * Compose's interpolation, the forms this file uses: `${VAR}`, `${VAR:-default}`
 * (default when unset or empty) and `${VAR:+replacement}` (replacement when set
 * and not empty).
 */
export function interpolate(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{(\w+)(?:(:-|:\+)([^}]*))?\}/g, (_, name: string, operator?: string, word?: string) => {
    const value = env[name] ?? '';
    if (operator === ':-') return value === '' ? word! : value;
    if (operator === ':+') return value === '' ? '' : word!;
    return value;
  });
}

function commandArgs(command: RawService['command'], env: NodeJS.ProcessEnv): string[] {
  if (command === undefined) return [];
  // A string command is split on whitespace, as compose does when it has no quotes.
  if (typeof command === 'string') return interpolate(command, env).split(/\s+/).filter(Boolean);
  return command.map((arg) => interpolate(arg, env));
}

function publishedPorts(ports: string[] = []): Map<number, number> {
  const published = new Map<number, number>();
  for (const entry of ports) {
    const match = /^(?:[\d.]+:)?(\d+):(\d+)$/.exec(entry);
    if (!match) throw new Error(`docker/compose.yaml: port "${entry}" is not HOST:CONTAINER`);
    published.set(Number(match[2]), Number(match[1]));
  }
  return published;
}

export function readCompose(env: NodeJS.ProcessEnv = process.env, dockerDir = DOCKER_DIR): Map<string, ComposeService> {
  const file = parse(readFileSync(join(dockerDir, 'compose.yaml'), 'utf8')) as { services: Record<string, RawService> };
  const services = new Map<string, ComposeService>();
  for (const [name, raw] of Object.entries(file.services)) {
    services.set(name, {
      name,
      image: raw.image,
      args: commandArgs(raw.command, env),
      mounts: (raw.volumes ?? []).map((volume) => {
        const [source, target] = volume.split(':');
        return { source: resolve(dockerDir, source!), target: target! };
      }),
      published: publishedPorts(raw.ports),
    });
  }
  return services;
}

/** The image's tag: `otel/opentelemetry-collector-contrib:0.165.1` gives `0.165.1`. */
export function imageTag(image: string): string {
  return image.slice(image.lastIndexOf(':') + 1);
}
