"""Configuration, entirely from the environment (names documented in the README)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec


class Settings(msgspec.Struct, frozen=True):
    redis_url: str | None = None
    """``REDIS_URL``: an external Redis (or Cluster: ``redis+cluster://``). Unset: embedded."""
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    data_dir: Path = Path("data")
    """Where the embedded Redis keeps its AOF."""
    appendfsync: str = "always"
    cors_origins: tuple[str, ...] = ()
    rate_limit: int = 600
    """Writes per client per window; 0 turns the limit off."""
    rate_window_s: int = 60
    max_body_bytes: int = 16_384
    sse_heartbeat_s: float = 15.0
    cache_size: int = 10_000
    log_level: str = "info"
    access_log: bool = True
    """One JSON line per request (method, path, status, duration, request id)."""
    shutdown_grace_s: float = 10.0
    table_expiry_s: int = 3_600
    """A table still waiting for players this long after its creation is closed (expired)."""
    rematch_hold_s: int = 120
    """How long a rematch keeps each person's old seat for them before anyone may take it."""
    sweep_interval_s: float = 0.25
    """How often each instance looks for due turn deadlines and expired tables."""
    trusted_proxies: Annotated[str, msgspec.Meta(pattern=r"^[0-9A-Fa-f.:/, ]*$")] = ""
    """Addresses or networks (comma-separated) of the proxies whose ``X-Forwarded-For`` is
    believed: the client is its rightmost address not among them. Empty: the peer itself."""
    max_connections_per_address: int = 64
    """Open connections one address may hold; beyond it its idlest idle one is closed, or the
    new one refused (429) when none is idle. Trusted proxies are exempt; 0: no cap."""
    max_connections: int = 2_048
    """Open connections per worker (lowered to fit the open-file limit; 0: that limit); the
    idlest idle one is closed to make room, else the new one is refused (503)."""
    max_streams_per_address: int = 16
    """SSE streams one client address may hold open at once (per worker); 429 beyond; 0: no
    cap."""
    read_timeout_s: float = 10.0
    """A request's headers and body must arrive within this (slow clients are closed)."""
    keep_alive_s: float = 5.0
    """An idle keep-alive connection is closed after this."""
    max_bot_target: int = 21
    """The highest ``target`` a game of four bots may have (its whole log is written at once)."""
    tables_per_hour: int = 60
    """Games one client address may create per hour; 0 turns the quota off."""
    archive_dir: Path | None = None
    """Where ``allfours archive`` writes finished games' replays, and ``/replay`` finds them."""
    finished_ttl_s: int = 86_400
    """After a game ends, its idempotency records and seat tokens expire after this."""


ENV_NAMES: Mapping[str, str] = {
    "redis_url": "REDIS_URL",
    "host": "ALLFOURS_HOST",
    "port": "ALLFOURS_PORT",
    "workers": "ALLFOURS_WORKERS",
    "data_dir": "ALLFOURS_DATA_DIR",
    "appendfsync": "ALLFOURS_APPENDFSYNC",
    "cors_origins": "ALLFOURS_CORS_ORIGINS",
    "rate_limit": "ALLFOURS_RATE_LIMIT",
    "rate_window_s": "ALLFOURS_RATE_WINDOW_S",
    "max_body_bytes": "ALLFOURS_MAX_BODY_BYTES",
    "sse_heartbeat_s": "ALLFOURS_SSE_HEARTBEAT_S",
    "cache_size": "ALLFOURS_CACHE_SIZE",
    "log_level": "ALLFOURS_LOG_LEVEL",
    "access_log": "ALLFOURS_ACCESS_LOG",
    "shutdown_grace_s": "ALLFOURS_SHUTDOWN_GRACE_S",
    "table_expiry_s": "ALLFOURS_TABLE_EXPIRY_S",
    "rematch_hold_s": "ALLFOURS_REMATCH_HOLD_S",
    "sweep_interval_s": "ALLFOURS_SWEEP_INTERVAL_S",
    "trusted_proxies": "ALLFOURS_TRUSTED_PROXIES",
    "max_connections_per_address": "ALLFOURS_MAX_CONNECTIONS_PER_ADDRESS",
    "max_connections": "ALLFOURS_MAX_CONNECTIONS",
    "max_streams_per_address": "ALLFOURS_MAX_STREAMS_PER_ADDRESS",
    "read_timeout_s": "ALLFOURS_READ_TIMEOUT_S",
    "keep_alive_s": "ALLFOURS_KEEP_ALIVE_S",
    "max_bot_target": "ALLFOURS_MAX_BOT_TARGET",
    "tables_per_hour": "ALLFOURS_TABLES_PER_HOUR",
    "archive_dir": "ALLFOURS_ARCHIVE_DIR",
    "finished_ttl_s": "ALLFOURS_FINISHED_TTL_S",
}


def from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``env`` (default: the process environment); unset names keep defaults."""
    env = os.environ if env is None else env
    raw: dict[str, object] = {}
    for field, name in ENV_NAMES.items():
        value = env.get(name)
        if value is None or value == "":
            continue
        raw[field] = (
            [o.strip() for o in value.split(",") if o.strip()] if field == "cors_origins" else value
        )
    return msgspec.convert(raw, Settings, strict=False, dec_hook=_from_text)


def _from_text(type_: type, value: object) -> object:
    """msgspec converts str to int, float and bool itself; paths are left to us."""
    if type_ is Path and isinstance(value, str):
        return Path(value)
    raise NotImplementedError(type_)
