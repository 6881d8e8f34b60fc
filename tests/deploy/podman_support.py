"""Podman for the container tests: whether it can run here, the images they need, and
containers, volumes and networks that are removed again whatever happens.

The images come from this machine alone (no registry is reachable): ``deploy/local-images/
build.sh`` bootstraps Debian and builds stand-ins for the public base images (cached), then
``deploy/Dockerfile`` is built on the Python stand-in, with the machine's CA bundle and pip
configuration mounted read-only for the build only. Every container runs with runc and with
ulimits below the machine's (crun fails on its cgroups; the sandbox cannot raise limits).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deploy_model import DEPLOY, REPO

STANDIN = "localhost/allfours-standin"
PYTHON_IMAGE = f"{STANDIN}/python:3.11-slim"
REDIS_IMAGE = f"{STANDIN}/redis:7"
NGINX_IMAGE = f"{STANDIN}/nginx:1.22"
APP_IMAGE = "localhost/allfours:test"
RUN_FLAGS = (
    "--runtime",
    "runc",
    "--ulimit",
    "nofile=4096:4096",
    "--ulimit",
    "nproc=4096:4096",
)
"""For ``podman run``, ``create`` and ``build``."""
INSTALL_HINT = "apt-get install podman runc debootstrap uidmap netavark aardvark-dns (.ci/run does)"


def unavailable() -> str | None:
    """Why the container tests cannot run here, or None when they can."""
    for tool in ("podman", "runc", "debootstrap"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed: {INSTALL_HINT}"
    if os.geteuid() != 0:
        return "the container tests use rootful podman: run them as root"
    return None


def podman(*args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess[str]:
    """One podman command, bounded in time; its output as text. ``check``: fail on non-zero."""
    done = subprocess.run(
        ["podman", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} -> {done.returncode}:\n{done.stderr}")
    return done


def build_images() -> None:
    """The stand-in base images (cached by recipe) and the project's image from
    ``deploy/Dockerfile``, built for real."""
    subprocess.run([str(DEPLOY / "local-images" / "build.sh")], check=True, timeout=900)
    previous = podman("image", "inspect", "--format", "{{.Id}}", APP_IMAGE, check=False)
    mounts: list[str] = []
    build_args = ["--build-arg", f"PYTHON_IMAGE={PYTHON_IMAGE}"]
    ca_bundle = os.environ.get("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
    if Path(ca_bundle).is_file():
        mounts += ["-v", f"{ca_bundle}:{ca_bundle}:ro"]
        build_args += ["--build-arg", f"SSL_CERT_FILE={ca_bundle}"]
    if Path("/etc/pip.conf").is_file():
        mounts += ["-v", "/etc/pip.conf:/etc/pip.conf:ro"]
    podman(
        "build",
        *RUN_FLAGS,
        "--format",
        "docker",  # the OCI format has no HEALTHCHECK
        # No layer cache: podman 4.3 (buildah 1.28) reused a cached `COPY server` layer for a
        # tree whose files differed. (Nor does it leave intermediate images behind.)
        "--layers=false",
        *build_args,
        *mounts,
        "-f",
        str(DEPLOY / "Dockerfile"),
        "-t",
        APP_IMAGE,
        str(REPO),
        timeout=600,
    )
    # The image this build replaced, now untagged, goes (each is a few hundred MB).
    current = podman("image", "inspect", "--format", "{{.Id}}", APP_IMAGE).stdout.strip()
    if previous.returncode == 0 and previous.stdout.strip() != current:
        podman("rmi", previous.stdout.strip(), check=False)


def image_size_mb(image: str) -> float:
    size = json.loads(podman("image", "inspect", image).stdout)[0]["Size"]
    return round(int(size) / 1e6, 1)


def inspect(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(podman("inspect", name).stdout)[0]
    return found


def healthy(container: str) -> bool:
    """``podman healthcheck run``: the image's HEALTHCHECK, once, now."""
    return podman("healthcheck", "run", container, check=False, timeout=30).returncode == 0


def wait_until(predicate: Any, timeout_s: float, what: str, interval_s: float = 0.25) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s} s: {what}")
        time.sleep(interval_s)


@dataclass
class Scope:
    """Names of one test's containers, volumes and networks (unique, so tests and runs never
    collide), and their removal at the end."""

    prefix: str = field(default_factory=lambda: f"aft-{uuid.uuid4().hex[:8]}")
    containers: list[str] = field(default_factory=list)
    volumes: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)

    def name(self, what: str) -> str:
        return f"{self.prefix}-{what}"

    def volume(self, what: str) -> str:
        name = self.name(what)
        podman("volume", "create", name)
        self.volumes.append(name)
        return name

    def network(self, what: str, subnet: str) -> str:
        name = self.name(what)
        podman("network", "create", "--subnet", subnet, name)
        self.networks.append(name)
        return name

    def run(self, what: str, image: str, *options: str, command: Sequence[str] = ()) -> str:
        """``podman run -d`` of a named container; its name."""
        name = self.name(what)
        self.containers.append(name)
        podman("run", "-d", "--name", name, *RUN_FLAGS, *options, image, *command)
        return name

    def logs(self, container: str, lines: int = 30) -> str:
        done = podman("logs", "--tail", str(lines), container, check=False)
        return done.stdout + done.stderr

    def remove(self) -> None:
        for container in reversed(self.containers):
            podman("rm", "-f", "-v", "-t", "0", container, check=False)  # -v: its anonymous /data
        for volume in self.volumes:
            podman("volume", "rm", "-f", volume, check=False)
        for network in self.networks:
            podman("network", "rm", "-f", network, check=False)


@contextmanager
def scope() -> Iterator[Scope]:
    made = Scope()
    try:
        yield made
    finally:
        made.remove()
