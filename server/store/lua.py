"""The append script: every check, then every write, in one atomic Redis call.

Redis runs a script without interleaving other commands, but it does not roll back: a write
that happened before an error stays. So the script does all its checks before its first write,
and the only write that could still fail (XADD with an explicit id) is guaranteed to succeed by
the version check, unless the stream was tampered with, in which case the very first XADD
fails and nothing is written.

The version is ``XLEN``: the store never trims or deletes entries and ids are ``1-0, 2-0, ...``,
so the length *is* the top id's version. XLEN is O(1) and copies no payload (unlike XREVRANGE
COUNT 1); should an entry ever be deleted behind our back, the explicit-id XADD would be refused
(id not above the top) instead of silently forking versions.

On a Redis Cluster the script also PUBLISHes the new version on the game's doorbell channel
(:func:`~server.store.keys.bell_channel`), last, after every write: that is how the cluster hub
learns that a stream grew (see :mod:`server.store.cluster_hub`). All keys it touches carry the
game's hash tag, so the cluster runs it on the one node that holds the game.
"""

from __future__ import annotations

import hashlib
from typing import Final

__all__ = ["APPEND_LUA", "APPEND_SCRIPT_SHA", "CONFLICT", "DUPLICATE", "OK"]

# Status codes of the script's reply: {status, version, first_version[, fingerprint]}.
OK: Final = 0
CONFLICT: Final = 1
DUPLICATE: Final = 2

APPEND_LUA: Final = """
-- KEYS[1] events stream, KEYS[2] command-id hash, KEYS[3] seat-token hash
-- ARGV[1] expected version, ARGV[2] command id ('' = none),
-- ARGV[3] seat ('' = none), ARGV[4] that seat's token hash,
-- ARGV[5] channel to announce the new version on ('' = none),
-- ARGV[6] the command's fingerprint (recorded with its id), ARGV[7..n] event bytes
local cmd = ARGV[2]
if cmd ~= '' then
  local seen = redis.call('HGET', KEYS[2], cmd)
  if seen then
    local last, first, print = string.match(seen, '^(%d+):(%d+):?(.*)$')
    return {2, tonumber(last), tonumber(first), print}
  end
end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then
  return {1, version, 0}
end
-- All checks passed: from here on, only writes.
local first = version + 1
for i = 7, #ARGV do
  version = version + 1
  if i == 7 and cmd ~= '' then
    redis.call('XADD', KEYS[1], version .. '-0', 'e', ARGV[i], 'c', cmd)
  else
    redis.call('XADD', KEYS[1], version .. '-0', 'e', ARGV[i])
  end
end
if cmd ~= '' then
  redis.call('HSET', KEYS[2], cmd, version .. ':' .. first .. ':' .. ARGV[6])
end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
end
if ARGV[5] ~= '' then
  redis.call('PUBLISH', ARGV[5], version)
end
return {0, version, first}
"""

# What EVALSHA sends (tests use it to see the script cache emptied by a restart).
APPEND_SCRIPT_SHA: Final = hashlib.sha1(APPEND_LUA.encode(), usedforsecurity=False).hexdigest()
