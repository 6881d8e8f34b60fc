"""The Dockerfile's install and start steps, replayed without Docker, so a broken step fails CI.

The steps come from ``deploy/Dockerfile`` itself (parsed by ``deploy_model``), not from a copy:

- builder stage: its ARG/ENV/WORKDIR/COPY/RUN run in order inside a temporary directory that
  stands for the image's ``/`` (absolute paths the Dockerfile owns, ``/src``, ``/opt/venv``,
  ``/app``, ``/data``, are mapped into it). COPY honours ``.dockerignore``. ``RUN --mount=
  type=cache`` runs without the mount (uv uses the host's cache, so this takes seconds). These
  RUN lines execute on this machine, so only ``uv ...`` commands are replayed and anything else
  fails the test (extend the allowlist knowingly); ``pip install uv==...`` is skipped: the uv
  running the tests stands in for it, as this machine's gcc does for the builder's apt-get.
- final stage: only what ``COPY --from`` takes survives (the builder's ``/src`` is deleted, as
  it is absent from the image); its ENV, WORKDIR and VOLUME apply. Its RUN lines (apt-get tini,
  useradd) are never executed here: they need a Debian base and would change this machine; they
  are checked statically in test_deploy_files.py instead.
- then ENTRYPOINT + CMD start, with the image's ENV (tini is used when installed; otherwise CMD
  alone), and the HEALTHCHECK command is run as Docker would run it until it passes; then
  SIGTERM, which must end the process with status 0 within the shutdown grace, open SSE stream
  included.

One deviation: ALLFOURS_PORT is set to a free port (this machine may have 8000 taken). The
HEALTHCHECK reads ALLFOURS_PORT, so it is checked as written.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from deploy_model import (
    REPO,
    Dockerfile,
    DockerIgnore,
    Instruction,
    Stage,
    duration_seconds,
    healthcheck_command,
    load_dockerfile,
    substitute,
)

from server.settings import ENV_NAMES, Settings

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

# Named in the issue; the complete set checked is the dev group's closure minus the runtime's.
DEV_ONLY = ("pytest", "hypothesis", "ruff", "mypy", "schemathesis")

# Host variables that would change what uv installs or what the server reads; the image has
# none of them. Other UV_* variables (cache, index, TLS) are kept: they are how this machine
# reaches PyPI.
_DROP_ENV = {
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "CONDA_PREFIX",
    "FORWARDED_ALLOW_IPS",
    *ENV_NAMES.values(),
}
_KEEP_UV = {
    "UV",
    "UV_CACHE_DIR",
    "UV_INDEX",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "UV_NATIVE_TLS",
    "UV_SYSTEM_CERTS",
    "UV_OFFLINE",
    "UV_HTTP_TIMEOUT",
    "UV_INSECURE_HOST",
    "UV_KEYRING_PROVIDER",
}


def host_env(shim_dir: Path | None) -> dict[str, str]:
    """The stand-in for the base image's environment: this machine's, minus what matters."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _DROP_ENV and (not k.startswith("UV_") or k in _KEEP_UV)
    }
    if shim_dir is not None:
        env["PATH"] = f"{shim_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


def uv_command() -> list[str]:
    """The uv that runs these tests (``make`` may have installed it as a module only)."""
    uv = os.environ.get("UV") or shutil.which("uv")
    return [uv] if uv else [sys.executable, "-m", "uv"]


def uv_shim(directory: Path) -> Path:
    """A directory to put on PATH so that the Dockerfile's ``uv`` is :func:`uv_command`."""
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / "uv"
    shim.write_text("#!/bin/sh\nexec " + " ".join(f'"{part}"' for part in uv_command()) + ' "$@"\n')
    shim.chmod(0o755)
    return directory


@dataclass
class Image:
    """What the replay produced: the image's filesystem under ``root`` and how to start it."""

    root: Path
    env: dict[str, str]
    workdir: Path
    entrypoint: list[str]
    cmd: list[str]
    healthcheck: list[str]
    healthcheck_timeout: float
    venv: Path
    build_log: list[str] = field(default_factory=list)


class Replay:
    """Runs Dockerfile instructions with ``root`` standing for the image's ``/``."""

    def __init__(self, dockerfile: Dockerfile, root: Path, base_env: dict[str, str]) -> None:
        self.dockerfile = dockerfile
        self.root = root
        self.base_env = base_env
        self.ignore = DockerIgnore.load()
        self.log: list[str] = []
        owned = set()
        for stage in dockerfile.stages:
            for instruction in stage.instructions:
                for path in self._absolute_paths(instruction):
                    owned.add(path.strip("/").split("/")[0])
        assert owned, "the Dockerfile uses no absolute path of its own?"
        self._owned = re.compile(
            r"(?<![\w./-])/(" + "|".join(map(re.escape, sorted(owned))) + r")(?=/|\b|$)"
        )

    @staticmethod
    def _absolute_paths(instruction: Instruction) -> list[str]:
        if instruction.keyword == "WORKDIR":
            return [instruction.args] if instruction.args.startswith("/") else []
        if instruction.keyword == "COPY":
            return [p for p in instruction.args.split() if p.startswith("/")]
        if instruction.keyword == "VOLUME":
            paths = instruction.exec_form() or instruction.args.split()
            return [p for p in paths if p.startswith("/")]
        return []

    def to_host(self, text: str) -> str:
        """Container paths the Dockerfile owns, rewritten under ``root``."""
        return self._owned.sub(lambda m: f"{self.root}{m.group(0)}", text)

    def host_path(self, path: str, cwd: Path) -> Path:
        return Path(self.to_host(path)) if path.startswith("/") else cwd / path

    def stage(self, stage: Stage, *, run: bool) -> tuple[dict[str, str], Path]:
        """Replay one stage (its RUN lines only if ``run``); returns its environment and final
        working directory."""
        env = dict(self.base_env)
        variables: dict[str, str] = {}
        global_args = self.dockerfile.global_arg_defaults()
        cwd = self.root
        for instruction in stage.instructions:
            keyword = instruction.keyword
            if keyword in {"ARG", "ENV"}:
                for key, raw in instruction.key_values():
                    if keyword == "ARG" and not raw:
                        if key not in global_args:
                            continue  # an ARG with no value is unset, as in Docker
                        raw = global_args[key]
                    value = substitute(self.to_host(raw), {**env, **variables})
                    variables[key] = value
                    env[key] = value
            elif keyword == "WORKDIR":
                cwd = self.host_path(substitute(instruction.args, variables), cwd)
                cwd.mkdir(parents=True, exist_ok=True)
            elif keyword == "VOLUME":
                for path in instruction.exec_form() or instruction.args.split():
                    self.host_path(path, cwd).mkdir(parents=True, exist_ok=True)
            elif keyword == "COPY":
                self.copy(instruction, variables, cwd)
            elif keyword == "RUN":
                if run:
                    self.run(instruction, env, cwd)
                else:
                    self.log.append(f"not run (final stage): RUN {instruction.args}")
            elif keyword not in {
                "USER",
                "EXPOSE",
                "STOPSIGNAL",
                "HEALTHCHECK",
                "ENTRYPOINT",
                "CMD",
                "LABEL",
            }:
                raise ValueError(f"line {instruction.line}: cannot replay {keyword}")
        return env, cwd

    def copy(self, instruction: Instruction, variables: dict[str, str], cwd: Path) -> None:
        *sources, destination = substitute(instruction.args, variables).split()
        target = self.host_path(destination, cwd)
        if "from" in instruction.flags:
            # Stages share ``root`` here, so the builder's files are already in place; a copy
            # to another path would break the venv (it is not relocatable).
            for source in sources:
                origin = self.host_path(source, cwd)
                assert origin.exists(), f"COPY --from: {source} was not built"
                if origin != target:
                    shutil.copytree(origin, target, symlinks=True, dirs_exist_ok=True)
            return
        into_dir = destination.endswith("/") or len(sources) > 1
        for source in sources:
            origin = REPO / source
            if origin.is_dir():
                self._copy_tree(origin, target)
            else:
                dest = target / origin.name if into_dir else target
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, dest)

    def _copy_tree(self, origin: Path, target: Path) -> None:
        for path in sorted(origin.rglob("*")):
            relative = path.relative_to(REPO).as_posix()
            if self.ignore.excluded(relative):
                continue
            dest = target / path.relative_to(origin)
            if path.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)

    def run(self, instruction: Instruction, env: dict[str, str], cwd: Path) -> None:
        mount = instruction.flags.get("mount", "")
        if mount and not all(m.startswith("type=cache") for m in mount.split()):
            raise ValueError(f"line {instruction.line}: only cache mounts can be replayed")
        if re.fullmatch(r"pip install (--\S+ )*\"?uv==\S+", instruction.args):
            self.log.append(f"skipped (the host's uv stands in): RUN {instruction.args}")
            return
        compiler = r"apt-get update\s*&&\s*apt-get install -y --no-install-recommends gcc "
        if re.match(compiler, instruction.args):
            assert shutil.which("gcc"), "the engine's build needs a C compiler on this machine"
            self.log.append(f"skipped (the host's compiler stands in): RUN {instruction.args}")
            return
        for part in re.split(r"&&|;|\|\|", instruction.args):
            if not re.fullmatch(r"\s*uv [\w\s=.,/-]*", part):
                raise ValueError(
                    f"Dockerfile line {instruction.line}: only uv commands are replayed on this "
                    f"machine, not {part.strip()!r}; extend test_dockerfile_steps.py knowingly"
                )
        command = self.to_host(instruction.args)
        result = subprocess.run(
            ["/bin/sh", "-c", command],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        self.log.append(f"RUN {command}\n{result.stdout}{result.stderr}")
        assert result.returncode == 0, (
            f"Dockerfile line {instruction.line} failed ({result.returncode}): "
            f"RUN {instruction.args}\n{result.stdout}\n{result.stderr}"
        )


def build(root: Path, shim_dir: Path | None) -> Image:
    dockerfile = load_dockerfile()
    final = dockerfile.final
    root.mkdir(parents=True)
    replay = Replay(dockerfile, root, host_env(shim_dir))
    shipped = [c for c in final.all("COPY") if "from" in c.flags]
    built: set[Path] = set()
    for stage in dockerfile.stages[:-1]:
        if stage.name in {c.flags["from"] for c in shipped}:
            replay.stage(stage, run=True)
            built |= set(root.iterdir())
    for path in built:  # what ships is what COPY --from takes, not the builder's sources
        kept = [
            replay.host_path(c.args.split()[-1], root)
            for c in shipped
            if replay.host_path(c.args.split()[-1], root).is_relative_to(path)
        ]
        if not kept:
            shutil.rmtree(path)
    env, workdir = replay.stage(final, run=False)
    entrypoint = final.last("ENTRYPOINT")
    cmd = final.last("CMD")
    healthcheck = final.last("HEALTHCHECK")
    assert entrypoint is not None and cmd is not None and healthcheck is not None
    venv_copy = shipped[0].args.split()[-1]
    return Image(
        root=root,
        env=env,
        workdir=workdir,
        entrypoint=entrypoint.exec_form() or [],
        cmd=cmd.exec_form() or [],
        healthcheck=healthcheck_command(healthcheck),
        healthcheck_timeout=duration_seconds(healthcheck.flags.get("timeout", "30s")),
        venv=replay.host_path(venv_copy, root),
        build_log=replay.log,
    )


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Image:
    base = tmp_path_factory.mktemp("img")
    return build(base / "root", uv_shim(base / "shim"))


# --------------------------------------------------------------------------------------------
# the built venv


def requirement_names(args: list[str]) -> set[str]:
    result = subprocess.run(
        [*uv_command(), "export", "--locked", "--no-hashes", "--no-emit-project", *args],
        cwd=REPO,
        env=host_env(None),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    names = set()
    for line in result.stdout.splitlines():
        if line and not line.startswith((" ", "#", "-")):
            names.add(normalize(re.split(r"[=<>!~; \[]", line, maxsplit=1)[0]))
    return names


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed(image: Image) -> dict[str, dict[str, object]]:
    script = (
        "import importlib.metadata as m, json\n"
        "print(json.dumps({d.metadata['Name']: json.loads(d.read_text('direct_url.json') or 'null')"
        " for d in m.distributions()}))"
    )
    result = subprocess.run(
        [str(image.venv / "bin" / "python"), "-c", script],
        cwd=image.workdir,
        env=image.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {normalize(k): v for k, v in json.loads(result.stdout).items()}


def test_the_venv_holds_the_locked_runtime_dependencies_and_no_dev_ones(image: Image) -> None:
    packages = installed(image)
    runtime = requirement_names(["--no-dev"])
    dev_only = requirement_names(["--only-group", "dev"]) - runtime
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    name = normalize(pyproject["project"]["name"])

    for package in DEV_ONLY:
        assert package not in packages, f"dev dependency {package} in the image"
    assert not (set(packages) & dev_only), f"dev-only packages shipped: {set(packages) & dev_only}"
    assert set(packages) <= runtime | {name}, f"not locked: {set(packages) - runtime - {name}}"
    for requirement in pyproject["project"]["dependencies"]:
        assert normalize(re.split(r"[=<>!~; \[]", requirement, maxsplit=1)[0]) in packages
    direct_url = packages[name]
    assert not (direct_url or {}).get("dir_info", {}).get("editable"), "installed editable"
    assert not (image.root / "src").exists(), "the builder's sources must not ship"


def test_the_app_imports_from_the_venv_and_runs_the_compiled_engine(image: Image) -> None:
    script = "import server, domain; print(server.__file__); print(domain.ENGINE)"
    result = subprocess.run(
        [str(image.venv / "bin" / "python"), "-c", script],
        cwd=image.workdir,
        env=image.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    where, engine = result.stdout.split()
    assert Path(where).is_relative_to(image.venv)
    assert engine == "compiled"  # the wheel's build compiled it


# --------------------------------------------------------------------------------------------
# start, health, stop


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def healthcheck(image: Image, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The HEALTHCHECK command, run the way Docker runs it (exec form, image env and workdir)."""
    return subprocess.run(
        image.healthcheck,
        cwd=image.workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=image.healthcheck_timeout + 5,
        check=False,
    )


def http(port: int, method: str, path: str, body: object = None) -> tuple[int, dict[str, str]]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, {}


class SseReader(threading.Thread):
    """Follows a game's stream until the server closes it."""

    def __init__(self, port: int, game_id: str) -> None:
        super().__init__(daemon=True)
        self.url = f"http://127.0.0.1:{port}/v1/games/{game_id}/stream"
        self.first_event = threading.Event()
        self.lines: list[str] = []
        self.ended = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=60) as response:
                for raw in response:
                    line = raw.decode().rstrip("\n")
                    self.lines.append(line)
                    if line == "id: 1":
                        self.first_event.set()
        except BaseException as error:  # reported by the test
            self.error = error
        finally:
            self.ended.set()


@contextlib.contextmanager
def running(image: Image, env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """ENTRYPOINT + CMD (CMD alone when the entrypoint program is not installed here)."""
    entry = image.entrypoint
    argv = [*entry, *image.cmd] if entry and shutil.which(entry[0], path=env["PATH"]) else image.cmd
    log = image.root.parent / f"serve-{env['ALLFOURS_PORT']}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv,
            cwd=image.workdir,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc, log
    finally:
        # Everything it started, an embedded Redis left behind by a failed shutdown included.
        for pid in session_members(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(10)


def session_members(sid: int) -> list[int]:
    """Live processes of the session ``sid`` (``start_new_session`` made the server its leader;
    tini gives its child a process group of its own, so process groups would miss them)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[3]) == sid:
                members.append(int(stat.parent.name))
    return members


@pytest.mark.parametrize("store", ["embedded", "REDIS_URL"])
def test_the_image_starts_answers_its_healthcheck_and_stops_cleanly(
    image: Image, store: str, request: pytest.FixtureRequest
) -> None:
    port = free_port()
    env = {**image.env, "ALLFOURS_PORT": str(port)}
    if store == "REDIS_URL":
        env["REDIS_URL"] = request.getfixturevalue("redis_url")
    grace = Settings().shutdown_grace_s
    if "ALLFOURS_SHUTDOWN_GRACE_S" in env:
        grace = float(env["ALLFOURS_SHUTDOWN_GRACE_S"])

    before = healthcheck(image, env)
    assert before.returncode != 0, "the HEALTHCHECK passes with no server: it checks nothing"

    with running(image, env) as (proc, log):

        def tail() -> str:
            return log.read_text(errors="replace")[-3000:]

        deadline = time.monotonic() + 45
        while (check := healthcheck(image, env)).returncode != 0:
            assert proc.poll() is None, f"`allfours serve` exited ({proc.returncode}):\n{tail()}"
            assert time.monotonic() < deadline, (
                f"HEALTHCHECK never passed:\n{check.stderr}\n{tail()}"
            )
            time.sleep(0.2)

        deadline = time.monotonic() + 15
        while (ready := http(port, "GET", "/readyz"))[0] != 200:
            assert time.monotonic() < deadline, f"/readyz: {ready}\n{tail()}"
            time.sleep(0.2)
        status, created = http(port, "POST", "/v1/games", {})
        assert status == 201, f"{status}\n{tail()}"
        reader = SseReader(port, created["game_id"])
        reader.start()
        assert reader.first_event.wait(10), f"no SSE event: {reader.lines} {reader.error}"

        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(grace)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {grace} s after SIGTERM:\n{tail()}")
        elapsed = time.monotonic() - started
        assert reader.ended.wait(5), "the SSE stream outlived the server"
        deadline = time.monotonic() + 5
        while (leftover := session_members(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (code, leftover) == (0, []), (
            f"after SIGTERM: exit status {code}, processes left behind {leftover} "
            f"(the embedded Redis?):\n{tail()}"
        )
        assert elapsed < grace, elapsed

    if store == "embedded" and "ALLFOURS_DATA_DIR" in env:
        data = Path(env["ALLFOURS_DATA_DIR"])
        assert data.is_relative_to(image.root), "the embedded Redis wrote outside the image"
        assert any(p.name.startswith("appendonly") for p in data.iterdir()), "no AOF in the volume"
        assert not (data / "redis.sock").exists(), "the embedded Redis was not shut down"
