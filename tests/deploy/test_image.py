"""The image built from ``deploy/Dockerfile``, run for real with podman.

- What ships: user 10001, tini as PID 1, the HEALTHCHECK (kept: built ``--format docker``), no
  compiler, uv, dev dependencies, tests or sources; its size against the Python base.
- On its embedded Redis, as the Kubernetes manifests run it: read-only root filesystem, no
  capabilities, writable ``/data`` and ``/tmp`` only; a game played through it; healthy;
  SIGTERM with an SSE stream open: the stream is closed and the container exits 0 within the
  grace period; a new container on the same volume has every game.
- On a Redis container (``deploy/redis.conf``, as compose runs it): a game; healthy, still
  healthy just after Redis went away, unhealthy once it is gone for good
  (``ALLFOURS_REDIS_DOWN_LIMIT_S``, lowered here).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from podman_support import (
    APP_IMAGE,
    PYTHON_IMAGE,
    RUN_FLAGS,
    Scope,
    healthy,
    inspect,
    podman,
    scope,
)
from support import (
    bearer,
    check_finished_log,
    create_game,
    drive,
    free_port,
    replay_of,
    sse_frames,
    take_seat,
)
from topology import Topology

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

GRACE_S = 5
REDIS_DOWN_LIMIT_S = 3
"""Redis unreachable this long is gone for good (shipped: 60 s)."""
LOCKED_DOWN = (
    "--read-only",
    "--read-only-tmpfs=false",
    "--tmpfs",
    "/tmp:size=64m",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
)
"""As deploy/k8s/app/deployment.yaml: readOnlyRootFilesystem, an emptyDir on /tmp, no
capabilities, no privilege escalation."""

# Run inside the image by its own python: what must not be there.
_INSIDE = """
import importlib.util, json, os, shutil
from pathlib import Path
import domain
print(json.dumps({
    "engine": domain.ENGINE,
    "uid": os.getuid(),
    "tools": [t for t in ("gcc", "cc", "c++", "make", "uv", "git") if shutil.which(t)],
    "modules": [m for m in ("pytest", "hypothesis", "mypy", "ruff", "schemathesis", "uv")
                if importlib.util.find_spec(m)],
    "sources": [str(p) for p in ("/src", "/app/tests", "/app/domain", "/app/server")
                if Path(p).exists()],
    "test_files": [str(p) for p in Path("/opt/venv").rglob("test_deploy_files.py")],
}))
"""


def test_image_is_unprivileged_small_and_holds_no_dev_tools(images: dict[str, float]) -> None:
    image = json.loads(podman("image", "inspect", APP_IMAGE).stdout)[0]
    assert image["Config"]["User"] == "10001:10001"
    assert image["Config"]["Entrypoint"] == ["tini", "--"]
    assert "/livez" in " ".join(image["Healthcheck"]["Test"])
    done = podman("run", "--rm", *RUN_FLAGS, "--entrypoint", "python", APP_IMAGE, "-c", _INSIDE)
    inside = json.loads(done.stdout)
    assert inside == {
        "engine": "compiled",  # compiled in the builder stage, which has the only compiler
        "uid": 10001,
        "tools": [],
        "modules": [],
        "sources": [],
        "test_files": [],
    }
    # The venv (the locked runtime dependencies) and tini over the Python base, nothing more.
    added = images[APP_IMAGE] - images[PYTHON_IMAGE]
    print(f"image sizes (MB): {images}, added over the base: {added:.0f}")
    assert added < 150, images


@pytest.fixture
def pod() -> AsyncIterator[Scope]:
    with scope() as made:
        yield made


async def play_a_game(url: str) -> str:
    """Four people play a short game to its end through ``url``; the game's id."""
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        created = await create_game(client, [None] * 4, target=3)
        game = created["game_id"]
        tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in range(4)}
        assert await drive(client, game, tokens, lambda _: False, random.Random(13)) is None
        _, log = await replay_of(client, game)
    check_finished_log(log)
    return str(game)


async def wait_ready(url: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(base_url=url, timeout=3) as client:
        while True:
            try:
                if (await client.get("/readyz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"{url} not ready within {timeout_s} s"
            await asyncio.sleep(0.25)


def exec_status(container: str, *command: str) -> int:
    return podman("exec", container, *command, check=False).returncode


async def test_embedded_redis_on_a_read_only_root(images: dict[str, float], pod: Scope) -> None:
    data = pod.volume("data")
    port = free_port()

    def start(what: str) -> str:
        return pod.run(
            what,
            APP_IMAGE,
            *LOCKED_DOWN,
            "-v",
            f"{data}:/data",
            "-p",
            f"127.0.0.1:{port}:8000",
            "-e",
            f"ALLFOURS_SHUTDOWN_GRACE_S={GRACE_S}",
            "-e",
            "ALLFOURS_SSE_HEARTBEAT_S=1",
        )

    url = f"http://127.0.0.1:{port}"
    app = start("embedded")
    await wait_ready(url)
    assert podman("exec", app, "cat", "/proc/1/cmdline").stdout.split("\0")[:2] == ["tini", "--"]
    assert podman("exec", app, "id", "-u").stdout.strip() == "10001"
    assert exec_status(app, "touch", "/app/x") != 0, "the root filesystem is writable"
    assert exec_status(app, "touch", "/data/x", "/tmp/x") == 0
    assert healthy(app)

    finished = await play_a_game(url)
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        created = await create_game(client, [None] * 4)
        unfinished = created["game_id"]
        token = await take_seat(client, unfinished, 0, "p0")
        frames = []

        async def follow() -> float:
            async for frame in sse_frames(
                client, f"/v1/games/{unfinished}/stream", headers=bearer(token)
            ):
                frames.append(frame)
            return time.monotonic()

        versions = {}
        for game in (finished, unfinished):
            versions[game] = (await client.get(f"/v1/games/{game}")).json()["version"]
        following = asyncio.create_task(follow())
        while not frames:
            await asyncio.sleep(0.05)
            assert not following.done(), await following
        stopped_at = time.monotonic()
        stop = asyncio.create_task(asyncio.to_thread(podman, "stop", "-t", "30", app, timeout=60))
        closed_at = await asyncio.wait_for(following, GRACE_S + 5)
        await stop
        exited_after = time.monotonic() - stopped_at
    state = inspect(app)["State"]
    assert state["ExitCode"] == 0, pod.logs(app)
    assert closed_at - stopped_at < GRACE_S, "the SSE stream was not closed within the grace"
    assert exited_after < GRACE_S + 5, f"stopped in {exited_after:.1f} s"

    # A new container on the same volume: every game is there, as it was.
    podman("rm", app)
    start("again")
    await wait_ready(url)
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        _, log = await replay_of(client, finished)
        check_finished_log(log)
        for game, version in versions.items():
            response = await client.get(f"/v1/games/{game}")
            assert response.status_code == 200 and response.json()["version"] == version


async def test_on_a_redis_container_then_without_it(
    images: dict[str, float], pod: Scope, tmp_path: object
) -> None:
    topology = Topology(pod, tmp_path, free_port())  # type: ignore[arg-type]
    topology.up_redis()
    app = pod.run(
        "app",
        APP_IMAGE,
        *LOCKED_DOWN,
        "--network",
        topology.network,
        "-p",
        f"127.0.0.1:{topology.port}:8000",
        "-e",
        "REDIS_URL=redis://redis:6379/0",
        "-e",
        f"ALLFOURS_REDIS_DOWN_LIMIT_S={REDIS_DOWN_LIMIT_S}",
    )
    await wait_ready(topology.url)
    await play_a_game(topology.url)
    assert healthy(app)
    assert exec_status(app, "ls", "/data/redis.sock") != 0, "an embedded Redis was started"

    # Redis gone for good (not a blip): the health check fails once the limit has passed.
    podman("rm", "-f", "-t", "0", topology.redis)
    assert healthy(app), "unhealthy at once: a blip would fail it too"
    deadline = time.monotonic() + REDIS_DOWN_LIMIT_S + 30
    while healthy(app):
        assert time.monotonic() < deadline, "still healthy long after Redis went away"
        await asyncio.sleep(1)
