"""A real ``allfours serve`` that a test may stop and start again on the same port (a
browser's stream drops and must resume at the same address)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from pathlib import Path

import httpx
from support import SERVER_ENV, ServerProcess, allfours_command, free_port


class RestartableServer:
    """``allfours serve`` on a port of its own that a test may stop and start again (the
    page's stream drops and must resume on the same address)."""

    def __init__(self, redis_url: str, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._redis_url = redis_url
        self._workdir = workdir
        self.process: ServerProcess | None = None

    def _spawn(self) -> ServerProcess:
        log_path = self._workdir / f"server-{len(list(self._workdir.glob('*.log')))}.log"
        env = {**os.environ, **SERVER_ENV, "REDIS_URL": self._redis_url}
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [*allfours_command(), "serve", "--port", str(self.port)],
                env={**env, "ALLFOURS_PORT": str(self.port)},
                cwd=self._workdir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        return ServerProcess(self.url, proc, log_path)

    async def start(self) -> None:
        self.process = self._spawn()
        async with httpx.AsyncClient(base_url=self.url, timeout=1.0) as client:
            for _ in range(400):
                self.process.check_alive()
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get("/livez")).status_code == 200:
                        return
                await asyncio.sleep(0.05)
        raise AssertionError(f"not live on {self.url}:\n{self.process.log_tail()}")

    async def stop(self) -> None:
        assert self.process is not None
        code = await self.process.stop()
        assert code == 0, self.process.log_tail()
