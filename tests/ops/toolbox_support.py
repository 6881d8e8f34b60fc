"""A toolbox test's world: a private Redis, a server on it, and the operator's commands run as
an operator would (``allfours <subcommand>`` in a subprocess)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from support import ServerProcess, allfours_command


@dataclass
class Toolbox:
    """A private Redis, a server on it (archive directory set), and the operator's commands."""

    redis_url: str
    redis: Redis
    server: ServerProcess
    archive_dir: Path

    async def run(self, *args: str) -> tuple[int, Any]:
        """``allfours <args>`` against this Redis: (exit status, its JSON report)."""
        env = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "ALLFOURS_ARCHIVE_DIR": str(self.archive_dir),
            "ALLFOURS_LOG_LEVEL": "warning",
        }
        done = await asyncio.to_thread(
            subprocess.run,
            [*allfours_command(), *args],
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.stdout, done.stderr.decode()
        return done.returncode, json.loads(done.stdout)
