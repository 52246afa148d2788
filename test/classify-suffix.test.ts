// The implicit log's lists tell classify() their common suffix from their
// fingerprint arrays (implied-log.ts), without a `matches` call per message:
// for any request and implied log, the violation is the one the
// reconstruction rule gives over lists that only answer `matches`.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SYSTEM_FINGERPRINT } from '../src/invariant/fingerprint';
import { reconstruct, type RequestAndLog } from '../src/invariant/reconstruct';
import type { MessageSketch } from '../src/invariant/sketch';
import type { Message } from '../src/model/messages';
import { reconstructionFailure, type Implied } from '../src/request-path/implicit/implied-log';
import type { Seen } from '../src/request-path/implicit/seen-request';
import { visibleSketch } from '../src/request-path/implicit/stored-sketches';

const roles = ['user', 'assistant', 'tool'] as const;
/** A message per fingerprint (a small alphabet, so lists share starts, ends and repeats); 1 is the system fingerprint. */
const messageOf = (f: number): Message =>
  f === SYSTEM_FINGERPRINT ? { role: 'system', content: 's' } : { role: roles[f % 3]!, content: `m${f}` };

/** The request and the log as the reconstruction rule reads them, with `matches` only. */
function plain(seen: Seen, implied: Implied): RequestAndLog {
  return {
    requestLength: seen.fingerprints.length,
    logLength: implied.fingerprints.length,
    requestLeadsWithSystem: () => seen.fingerprints[0] === SYSTEM_FINGERPRINT,
    logLeadsWithSystem: () => implied.fingerprints[0] === SYSTEM_FINGERPRINT,
    matches: (i, j) => seen.fingerprints[i] === implied.fingerprints[j],
    requestFingerprint: (i) => seen.fingerprints[i]!,
    logFingerprint: (j) => implied.fingerprints[j]!,
    requestSketch: (i) => visibleSketch(seen.messages[i], false),
    logSketch: (j) => implied.sketches[j]!,
    differs: () => [],
  };
}

describe('the implicit log tells classify its common suffix', () => {
  it('and the violation is the one walking back with matches gives', () => {
    const list = fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 40 });
    fc.assert(
      fc.property(list, list, (request, log) => {
        const seen: Seen = { messages: request.map(messageOf), fingerprints: request };
        const implied: Implied = {
          fingerprints: log,
          sketches: log.map((f): MessageSketch => visibleSketch(messageOf(f), false)),
        };
        expect(reconstructionFailure(implied, seen, false)).toEqual(reconstruct(plain(seen, implied)).violation);
      }),
      { numRuns: 2000 },
    );
  });
});
