"""What keeps ``allfours serve`` up: one owner per data directory, an embedded Redis brought
back when it crashes, and HTTP worker processes replaced when they die.

- :class:`DataDirLock`: an exclusive ``flock`` on ``<data_dir>/allfours.lock``, held for the
  server's whole life. A second server on the same directory is refused (:class:`DataDirBusy`)
  before it touches anything; the lock goes with the process, however it ends (even SIGKILL).
- :class:`RedisSupervisor`: a thread that watches the embedded redis-server and, when it exits
  on its own, starts it again on the same socket and data directory (the AOF is replayed, so
  everything acknowledged is still there). If Redis cannot be brought back within the limit,
  it asks the process to stop (``on_give_up``), so that a process manager restarts the whole.
- :class:`WorkerPool`: ``count`` worker processes (spawned, so the pool may run threads) that
  share one listening socket; a worker that dies is replaced, after a growing pause if it keeps
  dying young. A worker whose supervisor is gone (SIGKILL) shuts itself down.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import wait as wait_for_exits
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Self

from server.redis_server import EmbeddedRedis, EmbeddedRedisError

__all__ = ["DataDirBusy", "DataDirLock", "RedisSupervisor", "WorkerPool"]

_log = logging.getLogger("allfours.supervisor")


# -- one server per data directory -------------------------------------------------------------


class DataDirBusy(RuntimeError):
    """Another live ``allfours serve`` holds the data directory."""

    def __init__(self, data_dir: Path, holder: int | None) -> None:
        who = f" (pid {holder})" if holder else ""
        super().__init__(
            f"the data directory {data_dir} is in use by another allfours serve{who}; "
            "stop that one first, or give this one another ALLFOURS_DATA_DIR"
        )
        self.data_dir = data_dir
        self.holder = holder


class DataDirLock:
    """An exclusive, non-blocking ``flock`` on ``<data_dir>/allfours.lock``.

    The file holds the owner's pid (for the refusal message); it is never deleted, since
    deleting it would let a newcomer lock a fresh file while the owner still holds the old one.
    The descriptor is not inherited by child processes (Python opens files close-on-exec).
    """

    FILE_NAME = "allfours.lock"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._fd: int | None = None

    @property
    def path(self) -> Path:
        return self.data_dir / self.FILE_NAME

    def acquire(self) -> None:
        """Take the lock, or raise :class:`DataDirBusy` having changed nothing."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            raise DataDirBusy(self.data_dir, int(holder) if holder.isdigit() else None) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor releases the lock
            self._fd = None

    def __enter__(self) -> Self:
        if self._fd is None:  # not already taken with acquire()
            self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


# -- the embedded Redis, brought back when it crashes ------------------------------------------


class RedisSupervisor:
    """Restarts a started :class:`EmbeddedRedis` whenever it exits without being asked to.

    Runs in a thread of its own (with its own event loop), so it works the same whether the
    process serves HTTP itself or supervises workers. Restart attempts back off from 0.1 s to
    5 s; after ``give_up_after_s`` of failed attempts (0: never) it calls ``on_give_up`` once
    and stops watching. Call :meth:`stop` before stopping the server itself.
    """

    def __init__(
        self,
        redis: EmbeddedRedis,
        *,
        give_up_after_s: float,
        on_give_up: Callable[[], None],
        poll_s: float = 0.05,
    ) -> None:
        self.redis = redis
        self.give_up_after_s = give_up_after_s
        self.on_give_up = on_give_up
        self.poll_s = poll_s
        self.restarts = 0
        self.gave_up = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="redis-supervisor", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (a restart under way is finished first)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        try:
            asyncio.run(self._watch())
        except Exception:
            _log.exception("the Redis supervisor failed; Redis is no longer watched")

    async def _watch(self) -> None:
        while not self._stop.is_set():
            code = self.redis.poll()
            if code is None:
                await asyncio.sleep(self.poll_s)
                continue
            _log.error(
                "redis-server exited on its own (code %s); restarting it on its data. "
                "Its log ended with:\n%s",
                code,
                self.redis.log_tail(),
            )
            if not await self._bring_back():
                return

    async def _bring_back(self) -> bool:
        """Start Redis again until it runs (True), or until stopped or given up (False)."""
        down_since = time.monotonic()
        pause = 0.1
        while not self._stop.is_set():
            try:
                await self.redis.start()
            except (EmbeddedRedisError, OSError) as exc:
                _log.error("could not restart redis-server: %s", exc)
            else:
                self.restarts += 1
                _log.warning(
                    "redis-server restarted (pid %s) after %.1f s down",
                    self.redis.pid,
                    time.monotonic() - down_since,
                )
                return True
            down_for = time.monotonic() - down_since
            if self.give_up_after_s > 0 and down_for >= self.give_up_after_s:
                _log.critical(
                    "redis-server could not be restarted within %g s "
                    "(ALLFOURS_REDIS_DOWN_LIMIT_S): stopping the server",
                    self.give_up_after_s,
                )
                self.gave_up = True
                self.on_give_up()
                return False
            if self.give_up_after_s > 0:  # one last attempt right at the limit
                pause = min(pause, max(0.05, self.give_up_after_s - down_for))
            await asyncio.to_thread(self._stop.wait, pause)  # returns at once on stop()
            pause = min(pause * 2, 5.0)
        return False


# -- HTTP workers, replaced when they die ------------------------------------------------------

_YOUNG_S = 10.0
"""A worker that dies younger than this counts as failing: its replacement waits (0.5 s, then
twice as long each time, up to 30 s), so a worker that cannot start does not spin."""


def _worker_main(target: Callable[..., None], args: Sequence[Any], supervisor: int) -> None:
    """A worker process's entry point: run ``target``, and shut down (SIGTERM: gracefully)
    should the supervisor die, so an orphan never keeps the port or serves on its own."""

    def watch() -> None:
        while os.getppid() == supervisor:
            time.sleep(0.5)
        _log.warning("the supervisor (pid %d) is gone: stopping this worker", supervisor)
        os.kill(os.getpid(), signal.SIGTERM)

    # A terminal's Ctrl-C reaches the whole process group, and the supervisor passes the stop
    # on as SIGTERM: until uvicorn takes SIGINT over, it would only cut the import short.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=watch, name="supervisor-watch", daemon=True).start()
    target(*args)


class WorkerPool:
    """``count`` processes running ``target(*args)`` (module-level, picklable: they are spawned,
    not forked). :meth:`run` blocks until SIGTERM or SIGINT, then sends SIGTERM to every worker
    and waits up to ``stop_timeout`` before killing what is left. ``on_exit(pid)`` is called for
    each worker that ends (metrics files to retire...)."""

    def __init__(
        self,
        target: Callable[..., None],
        args: Sequence[Any],
        *,
        count: int,
        stop_timeout: float,
        on_exit: Callable[[int], None] = lambda pid: None,
        name: str = "allfours-worker",
    ) -> None:
        self.target = target
        self.args = tuple(args)
        self.count = count
        self.stop_timeout = stop_timeout
        self.on_exit = on_exit
        self.name = name
        self.replaced = 0
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[BaseProcess | None] = [None] * count
        self._started = [0.0] * count
        self._failures = [0] * count
        self._due = [0.0] * count
        self._stopping = False

    def pids(self) -> list[int]:
        return [w.pid for w in self._workers if w is not None and w.pid is not None]

    def run(self) -> None:
        previous = {
            sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            for slot in range(self.count):
                self._spawn(slot)
            while not self._stopping:
                sentinels = [w.sentinel for w in self._workers if w is not None]
                wait_for_exits(sentinels, timeout=0.2)
                self._replace_the_dead()
        finally:
            self._stop_all()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self._stopping = True

    def _spawn(self, slot: int) -> None:
        worker = self._context.Process(
            target=_worker_main,
            args=(self.target, self.args, os.getpid()),
            name=f"{self.name}-{slot}",
        )
        worker.start()
        self._workers[slot] = worker
        self._started[slot] = time.monotonic()

    def _replace_the_dead(self) -> None:
        now = time.monotonic()
        for slot, worker in enumerate(self._workers):
            if worker is not None and worker.exitcode is not None:
                self._workers[slot] = None
                self._retire(worker)
                young = now - self._started[slot] < _YOUNG_S
                self._failures[slot] = self._failures[slot] + 1 if young else 0
                pause = 0.0 if not young else min(30.0, 0.5 * 2 ** (self._failures[slot] - 1))
                self._due[slot] = now + pause
                _log.error(
                    "worker %s (pid %s) exited with code %s; starting another%s",
                    slot,
                    worker.pid,
                    worker.exitcode,
                    f" in {pause:g} s" if pause else "",
                )
            if self._workers[slot] is None and now >= self._due[slot] and not self._stopping:
                self._spawn(slot)
                self.replaced += 1

    def _retire(self, worker: BaseProcess) -> None:
        if worker.pid is not None:
            try:
                self.on_exit(worker.pid)
            except Exception:
                _log.exception("cleaning up after worker pid %s failed", worker.pid)

    def _stop_all(self) -> None:
        alive = [w for w in self._workers if w is not None and w.exitcode is None]
        for worker in alive:
            if worker.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.stop_timeout
        for worker in alive:
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.exitcode is None:
                _log.error(
                    "worker pid %s ignored SIGTERM for %g s: killed", worker.pid, self.stop_timeout
                )
                worker.kill()
                worker.join()
        for ended in self._workers:
            if ended is not None:
                self._retire(ended)
        self._workers = [None] * self.count
