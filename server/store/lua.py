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

The script also keeps the game's entry in the due-index (a sorted set of game ids scored by the
time at which time alone next changes the game: a turn deadline or a table's expiry; see
:mod:`server.deadlines`), in the same atomic call as the events, so no crash between the two
can lose a deadline. And it can check a seat token's hash against the stored one before
anything else, so a command is only ever stored with the token that holds the seat *now* (not
one a process cached before the seat changed hands, or before Redis was restored from a
backup), and a duplicate's recorded outcome is only ever answered to that holder.

The script also PUBLISHes the new version on the game's doorbell channel
(:func:`~server.store.keys.bell_channel`), last, after every write: that is how every
process's hub learns that a stream grew, on one server or a cluster (see
:mod:`server.store.hub`). All keys it touches carry the game's hash tag, so a cluster runs it
on the one node that holds the game.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "APPEND_LUA",
    "CONFLICT",
    "DUE_FIX_LUA",
    "DUPLICATE",
    "OK",
    "SEAT_HASH_LUA",
    "TOKEN_REJECTED",
]

# Status codes of the script's reply: {status, version, first_version[, fingerprint]}.
OK: Final = 0
CONFLICT: Final = 1
DUPLICATE: Final = 2
TOKEN_REJECTED: Final = 3

APPEND_LUA: Final = """
-- KEYS[1] events stream, KEYS[2] command-id hash, KEYS[3] seat-token hash, KEYS[4] due-index
-- ARGV[1] expected version, ARGV[2] command digest ('' = none),
-- ARGV[3] seat ('' = none), ARGV[4] that seat's new token hash,
-- ARGV[5] channel to announce the new version on ('' = none),
-- ARGV[6] the command's fingerprint (recorded with its id),
-- ARGV[7] due-index score: '' = leave as is, '-' = remove, else ms; ARGV[8] the game id,
-- ARGV[9] seat whose token must match ('' = no check), ARGV[10] that token's hash,
-- ARGV[11] the command id itself, looked up only (records of versions before digests),
-- ARGV[12..n] event bytes
local version = redis.call('XLEN', KEYS[1])
-- The token first: no answer, a recorded one included, goes to a request that did not prove
-- the seat it acts for, as it is held now.
if ARGV[9] ~= '' and redis.call('HGET', KEYS[3], ARGV[9]) ~= ARGV[10] then
  return {3, version, 0}
end
local cmd = ARGV[2]
if cmd ~= '' then
  local seen = redis.call('HGET', KEYS[2], cmd) or redis.call('HGET', KEYS[2], ARGV[11])
  if seen then
    local last, first, print = string.match(seen, '^(%d+):(%d+):?(.*)$')
    return {2, tonumber(last), tonumber(first), print}
  end
end
if version ~= tonumber(ARGV[1]) then
  return {1, version, 0}
end
-- All checks passed: from here on, only writes.
local first = version + 1
-- Every entry has the same two fields (c is '' but on a batch's first): a stream node then
-- stores the field names once, not on each entry.
local mark = cmd
for i = 12, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], version .. '-0', 'e', ARGV[i], 'c', mark)
  mark = ''
end
if cmd ~= '' then
  redis.call('HSET', KEYS[2], cmd, version .. ':' .. first .. ':' .. ARGV[6])
end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
end
if ARGV[7] == '-' then
  redis.call('ZREM', KEYS[4], ARGV[8])
elseif ARGV[7] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[8])
end
if ARGV[5] ~= '' then
  redis.call('PUBLISH', ARGV[5], version)
end
return {0, version, first}
"""

DUE_FIX_LUA: Final = """
-- Correct a game's due-index entry, but only if the game is still at the version the
-- correction was decided on: otherwise an append since then has set the entry already, and
-- overwriting it with an older view could lose a deadline.
-- KEYS[1] events stream, KEYS[2] due-index; ARGV[1] version, ARGV[2] '-' or score, ARGV[3] id
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then
  return 0
end
if ARGV[2] == '-' then
  redis.call('ZREM', KEYS[2], ARGV[3])
else
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
end
return 1
"""

SEAT_HASH_LUA: Final = """
-- Replace a seat's token hash, but only if the game is still at the version the seat was
-- judged its player's on: a takeover since then holds the seat, and its token stands.
-- KEYS[1] events stream, KEYS[2] seat hashes; ARGV[1] version, ARGV[2] seat, ARGV[3] hash
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
"""
