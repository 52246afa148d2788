// The compare-and-set every write of a bucket goes through.

import { redisScript } from './script';

/**
 * KEYS[1], the bucket; ARGV: the version the writer read, the records, the
 * expiry in milliseconds. Writes the records when the bucket's version is
 * still the one read, bumps the version and sets the expiry; returns the new
 * version, or nil when another process wrote first. One key: a Cluster runs
 * it on the node of the conversation's slot.
 */
export const WRITE_BUCKET = redisScript(`
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '0') ~= ARGV[1] then return false end
local next = tostring((tonumber(current) or 0) + 1)
redis.call('HSET', KEYS[1], 'v', next, 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return next
`);
