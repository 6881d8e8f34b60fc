"""The errors of the embedded redis-server: what callers catch when it cannot serve.

Every failure to start, stop or keep the server running is an :class:`EmbeddedRedisError`;
a child that died on its own is the narrower :class:`RedisCrashed`, which carries its exit code
and the end of its log so the report says why.
"""

from __future__ import annotations

__all__ = ["EmbeddedRedisError", "RedisCrashed"]


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be started or stopped as asked."""


class RedisCrashed(EmbeddedRedisError):
    """The redis-server child exited although nobody asked it to stop."""

    def __init__(self, returncode: int, log_tail: str) -> None:
        super().__init__(
            f"redis-server exited unexpectedly (code {returncode}); log tail:\n{log_tail}"
        )
        self.returncode = returncode
        self.log_tail = log_tail
