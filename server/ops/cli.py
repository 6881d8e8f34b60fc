"""The toolbox's subcommands of ``allfours``: their arguments, and running them.

``server.cli`` only hands over: :func:`add_commands` adds the subcommands to its parser and
:func:`run` runs the one chosen (an exit status: 0 done, 1 problems found or left).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec

from domain import State
from server.lobby import Lobby
from server.ops.archive import Archiver
from server.ops.check import check_all
from server.ops.expire import expire_finished
from server.ops.games import game_ids, load
from server.ops.players import rebuild_players
from server.settings import Settings
from server.store import RedisEventStore, connect_store

COMMANDS = ("archive", "expire", "rebuild-lobby", "rebuild-players", "check")


def add_commands(commands: Any) -> None:
    """Add the toolbox's subcommands to ``allfours``' subparsers."""
    archive = commands.add_parser(
        "archive", help="move finished games older than an age to replay files"
    )
    archive.add_argument(
        "--older-than", type=float, required=True, metavar="SECONDS", help="since the last event"
    )
    archive.add_argument(
        "--dir", type=Path, help="where the replay files go (default ALLFOURS_ARCHIVE_DIR)"
    )
    expire = commands.add_parser(
        "expire", help="expire finished games' idempotency records and seat tokens"
    )
    expire.add_argument(
        "--older-than", type=float, default=0.0, metavar="SECONDS", help="since the last event"
    )
    expire.add_argument(
        "--ttl", type=int, metavar="SECONDS", help="default ALLFOURS_FINISHED_TTL_S"
    )
    commands.add_parser("rebuild-lobby", help="rebuild the lobby from the event streams")
    commands.add_parser(
        "rebuild-players", help="rebuild the players' game lists and ratings from the streams"
    )
    commands.add_parser("check", help="fold every game in Redis and report any problem")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Run the subcommand ``args.command``; print a JSON report; the exit status."""
    return asyncio.run(_run(args, settings))


def redis_url(settings: Settings) -> str:
    """``REDIS_URL``, else the socket of the embedded Redis that ``allfours serve`` runs."""
    if settings.redis_url is not None:
        return settings.redis_url
    socket = settings.data_dir.absolute() / "redis.sock"
    if not socket.exists():
        raise SystemExit(f"no REDIS_URL, and no running embedded Redis at {socket}")
    return f"unix://{socket}"


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    store = connect_store(redis_url(settings), name="allfours-ops")
    lobby = Lobby(store)
    try:
        report, status = await _dispatch(args, settings, store, lobby)
    finally:
        await store.aclose()
    sys.stdout.write(json.dumps(msgspec.to_builtins(report), indent=2, sort_keys=True) + "\n")
    return status


async def _dispatch(
    args: argparse.Namespace, settings: Settings, store: RedisEventStore, lobby: Lobby
) -> tuple[Any, int]:
    if args.command == "archive":
        directory = args.dir or settings.archive_dir
        if directory is None:
            raise SystemExit("allfours archive: give --dir or set ALLFOURS_ARCHIVE_DIR")
        done = await Archiver(store, lobby, directory, args.older_than).run()
        return done, 1 if done.failed else 0
    if args.command == "expire":
        ttl = settings.finished_ttl_s if args.ttl is None else args.ttl
        return {"expiring": await expire_finished(store, args.older_than, ttl)}, 0
    if args.command == "rebuild-lobby":
        listed, removed = await lobby.rebuild(_listings(store))
        return {"listed": listed, "removed": removed}, 0
    if args.command == "rebuild-players":
        return await rebuild_players(store, lobby), 0
    checked = await check_all(store, lobby)
    return checked, 1 if checked.problems else 0


async def _listings(store: RedisEventStore) -> AsyncIterator[tuple[str, State, int]]:
    async for game_id in game_ids(store.redis):
        game = await load(store, game_id)
        yield game_id, game.state, game.first_at
