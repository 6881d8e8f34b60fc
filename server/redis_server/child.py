"""One ``redis-server`` child process: spawned, ended on request, and never left behind.

The process is a plain ``Popen`` (not asyncio's subprocesses), so :meth:`RedisChild.kill` and
:meth:`RedisChild.poll` work from any event loop or none. Children still running when the
interpreter exits are killed, so a test run that dies half-way does not leave servers holding
ports and data directories.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import signal
import subprocess
import weakref
from pathlib import Path

from .errors import EmbeddedRedisError
from .host import redis_binary

__all__ = ["RedisChild"]

# Held weakly: a child nobody holds any more has been ended or has exited. One that exited on
# its own may linger here until then, which is harmless: killing an exited child is a no-op.
_live: weakref.WeakSet[RedisChild] = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    for child in list(_live):
        with contextlib.suppress(Exception):
            child.kill()


def _command(config: Path) -> list[str]:
    return [str(redis_binary()), str(config.resolve())]


class RedisChild:
    """A started ``redis-server`` process; it tells an exit we asked for from a crash."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        # Set once we are the ones ending the process, so its exit is not reported as a crash.
        self._ending = False
        _live.add(self)

    @classmethod
    async def spawn(cls, config: Path, log: Path) -> RedisChild:
        """Start ``redis-server config``, its output going to ``log`` (truncated first)."""
        # Truncate the log so a failure report shows this start's lines only. The child's
        # stdout/stderr go to the same file: config errors are printed before redis opens
        # its logfile, and they are exactly what a failed start must report.
        with log.open("wb") as output:
            popen = await asyncio.to_thread(
                subprocess.Popen,
                _command(config),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                # Its own session: Ctrl-C in a terminal signals the whole foreground group,
                # and Redis must outlive the server's graceful shutdown, then be stopped last.
                start_new_session=True,
            )
        return cls(popen)

    @property
    def pid(self) -> int:
        return self._popen.pid

    def poll(self) -> int | None:
        """The exit code if the process has exited, else ``None`` (like ``Popen.poll``)."""
        return self._popen.poll()

    def crash_code(self) -> int | None:
        """The exit code if the process exited without being asked to, else ``None``."""
        code = self._popen.poll()
        return code if code is not None and not self._ending else None

    async def terminate(self, grace: float) -> None:
        """SIGTERM (redis flushes the AOF) and wait; SIGKILL and raise after ``grace`` s."""
        self._ending = True
        try:
            if self._popen.poll() is None:
                self._popen.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self._popen.wait, grace)
            except subprocess.TimeoutExpired:
                self._popen.kill()
                self._popen.wait()
                raise EmbeddedRedisError("redis-server ignored SIGTERM; killed it") from None
        finally:
            _live.discard(self)

    def kill(self) -> None:
        """SIGKILL the process (a no-op once it has exited) and reap it."""
        self._ending = True
        if self._popen.poll() is None:
            self._popen.kill()
        self._popen.wait()
        _live.discard(self)

    async def wait(self) -> int:
        """Wait until the process exits and return its exit code."""
        # Polling, not a thread blocked in waitpid: such a thread could not be cancelled and
        # would hold up the loop's executor shutdown for as long as redis runs.
        popen = self._popen
        while (code := popen.poll()) is None:  # noqa: ASYNC110 - a child's exit is not awaitable
            await asyncio.sleep(0.05)
        return code
