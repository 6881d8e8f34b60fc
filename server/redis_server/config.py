"""The ``redis.conf`` of an embedded redis-server, rendered from its settings.

A pure function: the same settings give the same text, so the durability choices (AOF on, the
asked ``appendfsync``, no RDB snapshots, ``noeviction``) can be read and tested in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from .files import RedisFiles

__all__ = ["AppendFsync", "render_config"]

AppendFsync = Literal["always", "everysec", "no"]


def render_config(
    files: RedisFiles,
    *,
    port: int | None,
    appendfsync: AppendFsync,
    extra_config: Mapping[str, str],
) -> str:
    """The config file text; ``port`` ``None`` (or 0) means no TCP listener.

    ``extra_config`` comes last, so it overrides any of the settings above it.
    """
    settings: dict[str, str] = {
        "bind": "127.0.0.1",
        "port": str(port or 0),
        "dir": str(files.data_dir.resolve()),
        "logfile": str(files.log.resolve()),
        "pidfile": str(files.pid.resolve()),
        "daemonize": "no",
        "appendonly": "yes",
        "appendfsync": appendfsync,
        "appendfilename": '"appendonly.aof"',
        # The AOF is the durability story; RDB snapshots would only add fork pauses.
        "save": '""',
        # An event store must refuse writes when full rather than evict events.
        "maxmemory-policy": "noeviction",
        # Stream nodes of 16 KiB (any number of entries) instead of 4 KiB / 100 entries: a
        # finished game then holds about 1.6x its events' bytes instead of 2.0x (measured
        # by tests/bench/load.py); a read still scans at most one 16 KiB node.
        "stream-node-max-bytes": "16384",
        "stream-node-max-entries": "0",
    }
    path = files.socket
    if path is not None:
        settings["unixsocket"] = str(path.resolve())
        settings["unixsocketperm"] = "700"
    settings.update(extra_config)
    return "".join(f"{key} {value}\n" for key, value in settings.items())
