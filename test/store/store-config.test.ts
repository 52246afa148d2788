// Choosing the store (option, environment, default) and what a record holds.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/invariant/fingerprint';
import { sketch } from '../../src/invariant/sketch';
import { implicitConversationId } from '../../src/log/conversation-id';
import { Conversation } from '../../src/request-path/implicit/conversation';
import { decodeBucket, encodeBucket } from '../../src/request-path/implicit/conversation-codec';
import { STORE_ENV_VAR, STORE_PREFIX_ENV_VAR, readRedisUrl, storeChoice } from '../../src/request-path/implicit/store-config';
import { resetWarnings } from '../../src/warnings';
import { captureWarnings } from '../support/warnings';

const warn = captureWarnings();

describe('the store choice', () => {
  it('is memory by default, and for "memory" in any case', () => {
    expect(storeChoice(undefined, {})).toEqual({ kind: 'memory' });
    expect(storeChoice(undefined, { [STORE_ENV_VAR]: 'Memory' })).toEqual({ kind: 'memory' });
    expect(warn).not.toHaveBeenCalled();
  });

  it('takes a redis:// or rediss:// URL, with the service name as the default prefix', () => {
    const env = { [STORE_ENV_VAR]: 'rediss://cache:6380/2', OTEL_SERVICE_NAME: 'checkout' };
    expect(storeChoice(undefined, env)).toEqual({
      kind: 'redis',
      target: expect.objectContaining({ kind: 'url', cluster: false, tls: true, nodes: [{ host: 'cache', port: 6380 }], db: 2 }),
      prefix: 'checkout',
    });
    expect(storeChoice(undefined, { ...env, OTEL_SERVICE_NAME: '', OTEL_RESOURCE_ATTRIBUTES: 'a=b,service.name=cart' })).toMatchObject({
      prefix: 'cart',
    });
    expect(storeChoice(undefined, { ...env, [STORE_PREFIX_ENV_VAR]: 'shop-eu' })).toMatchObject({ prefix: 'shop-eu' });
  });

  it('prefers the option to the environment', () => {
    const env = { [STORE_ENV_VAR]: 'redis://env:6379', [STORE_PREFIX_ENV_VAR]: 'env' };
    expect(storeChoice({ store: 'redis://option:6379', storePrefix: 'opt' }, env)).toEqual({
      kind: 'redis',
      target: expect.objectContaining({ written: 'redis://option:6379' }),
      prefix: 'opt',
    });
    expect(storeChoice({ store: 'memory' }, env)).toEqual({ kind: 'memory' });
  });

  it('keeps memory for a value that names no store, with one warning that shows no password', () => {
    expect(storeChoice(undefined, { [STORE_ENV_VAR]: 'http://user:hunter2@cache:6379' })).toEqual({ kind: 'memory' });
    expect(storeChoice(undefined, { [STORE_ENV_VAR]: 'redis' })).toEqual({ kind: 'memory' });
    expect(warn).toHaveBeenCalledTimes(1);
    const line = String(warn.mock.calls[0]![0]);
    expect(line).toContain(STORE_ENV_VAR);
    expect(line).not.toContain('hunter2');
  });

  it('falls back to the service name for a prefix with spaces, with a warning', () => {
    expect(storeChoice({ store: 'redis://h', storePrefix: 'a b' }, { OTEL_SERVICE_NAME: 'svc' })).toMatchObject({ prefix: 'svc' });
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('a store URL', () => {
  it('names a Redis Cluster by redis+cluster://, its seed nodes separated by commas', () => {
    expect(readRedisUrl('redis+cluster://app:s3cret@10.0.0.1:7000,10.0.0.2,[::1]:7002')).toMatchObject({
      cluster: true,
      tls: false,
      username: 'app',
      password: 's3cret',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      db: 0,
      shown: 'redis+cluster://app:***@10.0.0.1:7000,10.0.0.2,[::1]:7002',
    });
    expect(readRedisUrl('rediss+cluster://h:1')).toMatchObject({ cluster: true, tls: true });
    expect(readRedisUrl('redis+cluster://h:1/3')).toEqual(expect.stringContaining('only database 0'));
    expect(readRedisUrl('redis://a:1,b:2')).toEqual(expect.stringContaining('redis+cluster://'));
  });

  it('takes a password of any characters, encoded or not, up to the last @', () => {
    expect(readRedisUrl('redis://:pa/ss@w?rd@cache:6379/1')).toMatchObject({
      password: 'pa/ss@w?rd',
      nodes: [{ host: 'cache', port: 6379 }],
      db: 1,
    });
    expect(readRedisUrl('redis://user:p%2Fw%40rd@cache')).toMatchObject({ username: 'user', password: 'p/w@rd' });
  });

  it('refuses a database that is not a number, a port out of range, or query parameters, with a warning and no crash', () => {
    for (const url of [
      'redis://127.0.0.1:6379/notadb',
      'redis://127.0.0.1:99999',
      'redis://h:6379/0?family=6',
      'redis://',
      'redis://h:x',
    ]) {
      expect(storeChoice({ store: url }, {}), url).toEqual({ kind: 'memory' });
    }
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('never shows a password in a warning, whatever its characters and whatever else is wrong with the URL', () => {
    const password = fc.string({ minLength: 6, maxLength: 24, unit: 'grapheme-ascii' }).filter((p) => !p.includes('@') && p.trim() === p);
    const shape = fc.constantFrom(
      'redis://:%p@h:1/notadb',
      'redis://u:%p@h:1/x/y',
      'http://u:%p@h',
      'redis+cluster://:%p@h:1/2',
      'foo:%p@bar',
      'redis://u:%p@',
    );
    fc.assert(
      fc.property(password, shape, (secret, template) => {
        warn.mockReset();
        resetWarnings();
        const url = template.replace('%p', secret);
        storeChoice({ store: url }, {});
        const lines = warn.mock.calls.map(([line]) => String(line)).join('\n');
        return !lines.includes(secret);
      }),
    );
  });

  it('warns once, for a store with no prefix, that an unnamed service shares its keys with every other unnamed app', () => {
    expect(storeChoice({ store: 'redis://h' }, {})).toMatchObject({ prefix: 'unknown_service:node' });
    storeChoice({ store: 'redis://other' }, {});
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('every other app with no OTEL_SERVICE_NAME');
    warn.mockReset();
    storeChoice({ store: 'redis://h' }, { OTEL_SERVICE_NAME: 'named' });
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('a stored record', () => {
  it('round-trips fingerprints and sketches, and never holds a preview, a participant name or text', () => {
    const messages = [
      { role: 'system', content: 'SECRET system' },
      { role: 'user', content: 'SECRET question', name: 'SECRET-alice' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'SECRET' } }] },
      { role: 'tool', content: 'SECRET result', toolCallId: 'call_1', name: 'lookup' },
    ];
    const fingerprints = messages.map((m) => fingerprintOf(m, { ignoreToolResultName: true }));
    const conversation = new Conversation(7, fingerprints, messages.map(sketch), fingerprints[1]!, 1234, {
      run: 'trace-1',
      length: 4,
      prefill: false,
      replyObserved: true,
    });
    const data = encodeBucket([conversation], new Set(), 64);
    expect(data).not.toContain('SECRET');
    const [decoded] = decodeBucket(data);
    expect(decoded!.fingerprints).toEqual(fingerprints);
    // The id it was born with, whatever number this process gives it.
    expect(implicitConversationId(decoded!.number)).toBe(implicitConversationId(7));
    expect(decoded!.lastRequest).toEqual({ run: 'trace-1', length: 4, prefill: false, replyObserved: true });
    expect(decoded!.sketches()).toEqual([
      { role: 'system' },
      { role: 'user', preview: null, toolCalls: 0, toolCallId: null, name: null },
      { role: 'assistant', preview: null, toolCalls: 1, toolCallId: null, name: null },
      { role: 'tool', preview: null, toolCalls: 0, toolCallId: 'call_1', name: 'lookup' },
    ]);
  });

  it('reads a bucket of another format as empty, and a malformed one as an error', () => {
    expect(decodeBucket(JSON.stringify({ v: 99, records: 'x' }))).toEqual([]);
    expect(() => decodeBucket(JSON.stringify({ v: 2, records: [{ id: 1 }] }))).toThrow(TypeError);
    expect(() => decodeBucket('{not json')).toThrow();
  });
});
