"""Configuration, entirely from the environment (names documented in the README)."""

from __future__ import annotations

import math
import os
import re
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

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
    """A request's headers and body must arrive within this (slow clients get 408 and are
    closed)."""
    keep_alive_s: float = 5.0
    """An idle keep-alive connection is closed after this."""
    max_bot_target: int = 21
    """The highest ``target`` a game of four bots may have (its whole log is written at once)."""
    min_turn_seconds: Annotated[int, msgspec.Meta(ge=1)] = 10
    """The shortest turn clock a new table may ask for (409 ``clock_too_short`` below)."""
    pause_when_absent: bool = True
    """A new game waits while every person at its table is away or gone (no timeout fires and
    no bot plays for them), instead of finishing without them."""
    away_pace_s: Annotated[float, msgspec.Meta(ge=0, le=60)] = 1.5
    """How long after its turn came the bot plays an away person's seat while others play on
    (0: at once); recorded in each new game."""
    stand_in: Literal["random", "heuristic", "strong", "master"] = "strong"
    """The bot level that plays for a person who is away, gone or out of time in a new game
    (recorded in its ``GameCreated``)."""
    bot_workers: Annotated[int, msgspec.Meta(ge=0, le=64)] = 1
    """Processes of this server that run the search bots' decisions, off its event loop (0:
    decide them in a thread of the server process, for machines that cannot fork)."""
    bot_timeout_s: Annotated[float, msgspec.Meta(ge=0, le=60)] = 5.0
    """How long a search (a bot's decision, a hint) may take in the workers: past it a bot's
    move is the heuristic's and a hint is 503 ``bots_busy``."""
    idle_expiry_s: Annotated[int, msgspec.Meta(ge=0)] = 1_800
    """A game paused (everyone away) or waiting with no clock on a person this long after its
    last move or change of seats is closed as idle (0: never); recorded in each new game."""
    takeover_grace_s: Annotated[int, msgspec.Meta(ge=0)] = 60
    """How long a seat whose person is away stays theirs (they may come back) before a
    newcomer may take it over; recorded in each new game."""
    tables_per_hour: int = 60
    """Games one client address may create per hour; 0 turns the quota off."""
    players_per_hour: int = 20
    """Player identities one client address may make per hour; 0 turns the quota off."""
    queue_heartbeat_s: float = 15.0
    """A matchmaking ticket not polled for this long is dropped (a closed tab)."""
    match_interval_s: float = 0.5
    """How often each instance runs the matchmaker's pass."""
    archive_dir: Path | None = None
    """Where ``allfours archive`` writes finished games' replays, and ``/replay`` finds them."""
    finished_ttl_s: int = 86_400
    """After a game ends, its idempotency records and seat tokens expire after this."""
    redis_down_limit_s: float = 60.0
    """How long Redis may stay unreachable before the process declares itself dead: ``/livez``
    then fails, and ``allfours serve`` exits if it could not restart its embedded Redis by then
    (0: never; ``/livez`` then checks nothing but the process)."""
    metrics: str = "public"
    """Who may read ``/metrics``: anyone who reaches the port (``public``), only a request with
    ``Authorization: Bearer <metrics_token>`` (``token``), or nobody (``off``: no ``/metrics``,
    and requests are not counted). Unset: ``token`` if a token is set, else ``public``."""
    metrics_token: str | None = None
    """The bearer token of ``metrics`` = ``token``: at least 16 visible ASCII characters. It
    appears in no log line or error message."""

    def __post_init__(self) -> None:
        if self.metrics == "token" and self.metrics_token is None:
            raise SettingsError(f"{_METRICS_TOKEN}: required with {_METRICS}=token")
        if self.metrics == "public" and self.metrics_token is not None:
            raise SettingsError(
                f"{_METRICS_TOKEN} is set, but {_METRICS}=public serves /metrics to anyone: "
                f"set {_METRICS}=token"
            )


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
    "min_turn_seconds": "ALLFOURS_MIN_TURN_SECONDS",
    "takeover_grace_s": "ALLFOURS_TAKEOVER_GRACE_S",
    "pause_when_absent": "ALLFOURS_PAUSE_WHEN_ABSENT",
    "away_pace_s": "ALLFOURS_AWAY_PACE_S",
    "idle_expiry_s": "ALLFOURS_IDLE_EXPIRY_S",
    "stand_in": "ALLFOURS_STAND_IN",
    "bot_workers": "ALLFOURS_BOT_WORKERS",
    "bot_timeout_s": "ALLFOURS_BOT_TIMEOUT_S",
    "sweep_interval_s": "ALLFOURS_SWEEP_INTERVAL_S",
    "trusted_proxies": "ALLFOURS_TRUSTED_PROXIES",
    "max_connections_per_address": "ALLFOURS_MAX_CONNECTIONS_PER_ADDRESS",
    "max_connections": "ALLFOURS_MAX_CONNECTIONS",
    "max_streams_per_address": "ALLFOURS_MAX_STREAMS_PER_ADDRESS",
    "read_timeout_s": "ALLFOURS_READ_TIMEOUT_S",
    "keep_alive_s": "ALLFOURS_KEEP_ALIVE_S",
    "max_bot_target": "ALLFOURS_MAX_BOT_TARGET",
    "tables_per_hour": "ALLFOURS_TABLES_PER_HOUR",
    "players_per_hour": "ALLFOURS_PLAYERS_PER_HOUR",
    "queue_heartbeat_s": "ALLFOURS_QUEUE_HEARTBEAT_S",
    "match_interval_s": "ALLFOURS_MATCH_INTERVAL_S",
    "archive_dir": "ALLFOURS_ARCHIVE_DIR",
    "finished_ttl_s": "ALLFOURS_FINISHED_TTL_S",
    "redis_down_limit_s": "ALLFOURS_REDIS_DOWN_LIMIT_S",
    "metrics": "ALLFOURS_METRICS",
    "metrics_token": "ALLFOURS_METRICS_TOKEN",
}
_METRICS, _METRICS_TOKEN = ENV_NAMES["metrics"], ENV_NAMES["metrics_token"]


class SettingsError(ValueError):
    """A setting's value is unusable. The message is one line that names the variable (or the
    command-line option) and says what was expected: ``ALLFOURS_PORT: expected an integer, got
    'abc'``; ``allfours serve`` prints it and exits with status 2."""


_APPENDFSYNC = ("always", "everysec", "no")
_LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
_REDIS_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_INTEGER = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: int() would take "١٢" and "1_0"
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")

_RANGES: Mapping[str, tuple[float, float | None]] = {
    "port": (0, 65_535),
    "workers": (1, None),
    "rate_window_s": (1, None),
    "max_body_bytes": (1, None),
    "cache_size": (1, None),
}
"""Bounds (inclusive) of numeric settings; any other number must not be negative."""
_POSITIVE = {
    "sse_heartbeat_s",
    "sweep_interval_s",
    "read_timeout_s",
    "queue_heartbeat_s",
    "match_interval_s",
}
"""Intervals that must be above zero (a zero would make a busy loop, or refuse everything)."""
_EXPECTED: Mapping[str, str] = {"trusted_proxies": "IP addresses or networks, comma-separated"}
_CHOICES: Mapping[str, tuple[str, ...]] = {
    "appendfsync": _APPENDFSYNC,
    "log_level": _LOG_LEVELS,
    "metrics": ("public", "token", "off"),
}
_TOKEN = re.compile(r"[!-~]{16,}")
"""A bearer token that fits in a header as it is: visible ASCII, no spaces."""


def from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``env`` (default: the process environment); unset names keep defaults.

    Raises :class:`SettingsError` naming the first variable whose value does not parse or is
    out of range (a port above 65535, no workers, an unknown fsync policy...), or two that
    contradict each other.

    ``/metrics`` (``ALLFOURS_METRICS``): ``public`` by default, ``token`` to require
    ``Authorization: Bearer`` + ``ALLFOURS_METRICS_TOKEN`` (setting the token alone selects
    it), ``off`` to serve none.
    """
    env = os.environ if env is None else env
    field_types = {field.name: field.type for field in msgspec.structs.fields(Settings)}
    values: dict[str, Any] = {}
    for field, name in ENV_NAMES.items():
        text = env.get(name)
        if text is None or not text.strip():
            continue
        values[field] = _parse(name, field, field_types[field], text)
    if "metrics_token" in values:
        values.setdefault("metrics", "token")  # a token is set to be asked for
    return Settings(**values)


def check(field: str, value: object, *, name: str | None = None) -> None:
    """Raise :class:`SettingsError` if ``value`` is out of range for ``field``; the message
    names ``name`` (a variable, or an option such as ``--workers``), by default the field's
    variable. For values that come from elsewhere than :func:`from_env` (the command line)."""
    name = name or ENV_NAMES[field]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    expected = _expected_number(field, type(value))
    low, high = _RANGES.get(field, (0, None))
    too_small = value <= 0 if field in _POSITIVE else value < low
    if too_small or (high is not None and value > high) or not math.isfinite(value):
        raise SettingsError(f"{name}: expected {expected}, got {value!r}")


def _parse(name: str, field: str, type_: Any, text: str) -> object:
    if type(type_) is types.UnionType:  # ``X | None``: the variable is set, so it is an X
        (type_,) = [t for t in type_.__args__ if t is not type(None)]
    value = text.strip()
    if type_ is bool:
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise SettingsError(f"{name}: expected true or false, got {text!r}")
    if type_ is int or type_ is float:
        pattern, noun = (_INTEGER, "an integer") if type_ is int else (_NUMBER, "a number")
        if not pattern.fullmatch(value):
            raise SettingsError(f"{name}: expected {noun}, got {text!r}")
        number = type_(value)
        try:
            check(field, number, name=name)
        except SettingsError:
            expected = _expected_number(field, type_)
            raise SettingsError(f"{name}: expected {expected}, got {text!r}") from None
        return number
    if type_ is Path:
        return Path(value)
    if field == "metrics_token":
        if not _TOKEN.fullmatch(value):  # the message must not show the secret
            raise SettingsError(
                f"{name}: expected at least 16 visible ASCII characters (no spaces), got "
                f"{len(value)} characters"
            )
        return value
    if field == "cors_origins":
        return tuple(o.strip() for o in text.split(",") if o.strip())
    if field == "redis_url":
        scheme, sep, _ = value.partition("://")
        if not sep or scheme.lower() not in _REDIS_SCHEMES:
            schemes = ", ".join(f"{s}://" for s in _REDIS_SCHEMES)
            raise SettingsError(
                f"{name}: expected a URL starting with one of {schemes}, got {text!r}"
            )
        return value
    if field in _CHOICES:
        if value.lower() not in _CHOICES[field]:
            raise SettingsError(
                f"{name}: expected one of {', '.join(_CHOICES[field])}, got {text!r}"
            )
        return value.lower()
    if type_ is str:
        return value
    try:  # constrained (``Annotated``) or other types: msgspec's own lax conversion
        return msgspec.convert(value, type_, strict=False)
    except msgspec.ValidationError as exc:
        expected = _EXPECTED.get(field) or str(exc).split(" - at ")[0].replace("Expected", "a")
        raise SettingsError(f"{name}: expected {expected}, got {text!r}") from None


def _expected_number(field: str, type_: type) -> str:
    noun = "an integer" if type_ is int else "a number"
    if field in _POSITIVE:
        return f"{noun} above 0"
    low, high = _RANGES.get(field, (0, None))
    if high is not None:
        return f"{noun} from {low:g} to {high:g}"
    return f"{noun} of at least {low:g}" if low else f"a non-negative {noun.split()[-1]}"
