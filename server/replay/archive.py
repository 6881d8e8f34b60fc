"""Replay files on disk: ``<dir>/<game id>.replay.json.gz``, a game's replay exactly as
``GET /v1/games/{id}/replay`` answers it (the same bytes once decompressed), gzip with a fixed
header so that the same game always gives the same file.

Writing is atomic (a temporary name, fsynced, renamed into place, the directory fsynced: a file
under its final name is always whole) and checked (read back: the same bytes, every event, fair
deals). The archive job (:mod:`server.ops.archive`) writes; ``getReplay`` reads.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import msgspec

from domain import verify
from server.replay.format import Replay

__all__ = ["SUFFIX", "ArchiveError", "archive_path", "read_archived", "write_archived"]

SUFFIX = ".replay.json.gz"


class ArchiveError(Exception):
    """A written file did not read back as the game it was written from."""


def archive_path(directory: Path, game_id: str) -> Path:
    return directory / f"{game_id}{SUFFIX}"


def read_archived(directory: Path | None, game_id: str) -> Replay | None:
    """The archived replay of ``game_id``, or None (no archive directory, or not archived)."""
    if directory is None:
        return None
    try:
        data = gzip.decompress(archive_path(directory, game_id).read_bytes())
    except FileNotFoundError:
        return None
    return msgspec.json.decode(data, type=Replay)


def write_archived(directory: Path, replay: Replay) -> Path:
    """Write ``replay``'s file whole and check it reads back as that whole, fair game
    (:class:`ArchiveError` if not); its path."""
    data = msgspec.json.encode(replay)
    path = archive_path(directory, replay.game_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(path, gzip.compress(data, mtime=0))
    _check_file(path, data, len(replay.events))
    return path


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _check_file(path: Path, data: bytes, length: int) -> None:
    """The file must give back ``data``, and be a whole (``length`` events), fair game."""
    back = gzip.decompress(path.read_bytes())
    if back != data:
        raise ArchiveError(f"{path}: does not read back as written")
    replay = msgspec.json.decode(back, type=Replay)
    events = [envelope.event for envelope in replay.events]
    if len(events) != length or not verify(events).ok:
        raise ArchiveError(f"{path}: not the whole, fair game")
