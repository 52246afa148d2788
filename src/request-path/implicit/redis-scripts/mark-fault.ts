// The mark a process leaves on a bucket once the store answers again, after
// a fault kept one of its writes for that bucket out.

import { redisScript } from './script';

/**
 * KEYS[1], the bucket; ARGV[1], the expiry in milliseconds. Sets the
 * bucket's field `f` (a fault hid some of its replies) and its expiry,
 * leaving its version and records alone: a process reading it then takes an
 * assistant message it cannot place for an unseen reply, not an invented one.
 */
export const MARK_FAULT = redisScript(`
redis.call('HSET', KEYS[1], 'f', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`);
