"""``deploy/compose.yaml`` brought up with podman, as compose would: a podman pod script that
reads the compose file (merged with the test-only override ``compose.test.yaml``, which names
the local stand-in images) and runs each service with what the file says: image, command,
environment, volumes, replicas, health check, stop grace, start order.

Where podman on this machine differs from Docker, and only there, it deviates (all in this
module, each said where it happens):

- Every container gets a fixed address on a network of the test's own: the nginx stand-in
  (Debian's 1.22) cannot re-resolve upstream names (``server ... resolve`` needs 1.27.3), so
  it resolves ``app`` once, at start, and a restarted replica must come back where it was.
  The MAC address is derived from it, as Docker does (podman draws a new one at each start,
  and peers then cannot reach a restarted container until their neighbour cache expires).
- Redis's name is in every other container's /etc/hosts: podman's DNS (aardvark-dns 1.4)
  stops answering for tens of seconds when a container of the network restarts, which is
  what the Redis test does.
- nginx.conf's resolver is Docker's embedded DNS (127.0.0.11); podman's is at the network's
  gateway.
- The SSE read timeout is lowered (``SSE_READ_TIMEOUT_S``) below the time the test keeps a
  stream quiet, so that heartbeats, not the 1 h of the shipped file, are what keeps it open.
- Published ports are bound to loopback, on a free port.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from deploy_model import DEPLOY, duration_seconds
from podman_support import RUN_FLAGS, Scope, healthy, podman, wait_until

OVERRIDE = Path(__file__).with_name("compose.test.yaml")
SSE_READ_TIMEOUT_S = 3


def merged_compose(override: Path = OVERRIDE) -> dict[str, Any]:
    """compose.yaml with the override merged in (mappings merged key by key, other values
    replaced), as ``docker compose -f compose.yaml -f override`` does for these keys."""

    def merge(base: Any, extra: Any) -> Any:
        if isinstance(base, dict) and isinstance(extra, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in extra.items()}}
        return extra

    base = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    result: dict[str, Any] = merge(base, yaml.safe_load(override.read_text()))
    return result


def nginx_conf_for_podman(text: str, resolver: str) -> str:
    """The shipped nginx.conf with the deviations above (each must apply, or this fails)."""
    edits = [
        (r"resolver 127\.0\.0\.11\b", f"resolver {resolver}"),
        (r"(server app:8000) resolve\b", r"\1"),
        (r"(proxy_read_timeout) 1h;", rf"\1 {SSE_READ_TIMEOUT_S}s;"),
    ]
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text)
        assert count == 1, f"nginx.conf no longer has {pattern!r}"
    return text


def random_subnet() -> str:
    """The first three bytes of a /24 for the test's network (10.90-99.x: apart from podman's
    own 10.88/16 and 10.89/16)."""
    return f"10.{random.randint(90, 99)}.{random.randint(0, 255)}"


@dataclass
class Topology:
    """Redis, the app's replicas and nginx on one podman network."""

    scope: Scope
    workdir: Path
    port: int
    """nginx's published port, on 127.0.0.1."""
    compose: dict[str, Any] = field(default_factory=merged_compose)
    subnet: str = field(default_factory=random_subnet)
    network: str = ""
    replicas: list[str] = field(default_factory=list)
    redis: str = ""
    lb: str = ""
    _addresses: dict[str, str] = field(default_factory=dict)

    def service(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = self.compose["services"][name]
        return found

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def up(self, replicas: int | None = None) -> None:
        """Every service in dependency order, each healthy before the next starts (the
        compose file's ``depends_on: condition: service_healthy``)."""
        self.up_redis()
        count = replicas or int(self.service("app")["deploy"]["replicas"])
        for index in range(1, count + 1):
            self.replicas.append(self.start("app", f"app-{index}", 10 + index))
        for replica in self.replicas:
            self.wait_healthy(replica, "app")
        self.lb = self.start("lb", "lb", 5)
        wait_until(self.lb_ready, 30, f"nginx answering /readyz\n{self.scope.logs(self.lb)}")

    def up_redis(self) -> None:
        """The network and, on it, the Redis service, healthy."""
        self.network = self.scope.network("net", f"{self.subnet}.0/24")
        self.redis = self.start("redis", "redis", 10)
        self.wait_healthy(self.redis, "redis")

    def start(self, service: str, name: str, host: int, *extra: str) -> str:
        """A container of ``service`` at address ``host`` of the subnet (``extra``: more
        ``podman run`` options)."""
        spec = self.service(service)
        address = f"{self.subnet}.{host}"
        # The MAC follows the address, as Docker derives it: a container restarted at its
        # address is then reachable at once (peers' neighbour caches stay right).
        mac = "02:42:" + ":".join(f"{int(byte):02x}" for byte in address.split("."))
        options = ["--network", self.network, "--ip", address, "--mac-address", mac]
        options += ["--network-alias", service]
        options += self._redis_env_and_volumes(spec)
        for published in spec.get("ports", []):
            _, _, target = str(published).rpartition(":")
            options += ["-p", f"127.0.0.1:{self.port}:{target}"]
        options += extra
        container = self.scope.run(name, spec["image"], *options, command=spec.get("command", []))
        self._addresses[container] = address
        return container

    def run_tool(self, *command: str) -> subprocess.CompletedProcess[str]:
        """``command`` in a one-off container of the ``ops`` service (``docker compose run
        --rm ops ...``), to its end."""
        spec = self.service("ops")
        options = ["--rm", "--network", self.network, *self._redis_env_and_volumes(spec)]
        return podman("run", *RUN_FLAGS, *options, spec["image"], *command, timeout=300)

    def _redis_env_and_volumes(self, spec: dict[str, Any]) -> list[str]:
        """``podman run`` options for a service's Redis address, environment and volumes."""
        options = []
        if self.redis:
            options += ["--add-host", f"redis:{self._addresses[self.redis]}"]
        for key, value in (spec.get("environment") or {}).items():
            options += ["-e", f"{key}={value}"]
        for mount in spec.get("volumes", []):
            options += ["-v", self.mount(mount)]
        return options

    def mount(self, mount: str) -> str:
        source, _, rest = mount.partition(":")
        if source.startswith("./"):
            path = DEPLOY / source
            if path.name == "nginx.conf":
                path = self.workdir / "nginx.conf"
                gateway = f"{self.subnet}.1"
                path.write_text(nginx_conf_for_podman((DEPLOY / source).read_text(), gateway))
            return f"{path}:{rest}"
        name = self.scope.name(source)
        if name not in self.scope.volumes:
            self.scope.volume(source)
        return f"{name}:{rest}"

    def wait_healthy(self, container: str, service: str) -> None:
        """The compose health check (``healthcheck.test``), else the image's HEALTHCHECK."""
        check = (self.service(service).get("healthcheck") or {}).get("test")

        def passes() -> bool:
            if check:
                assert check[0] == "CMD", check
                done = podman("exec", container, *check[1:], check=False, timeout=10)
                return done.returncode == 0
            return healthy(container)

        try:
            wait_until(passes, 60, f"{container} healthy", 0.5)
        except AssertionError as late:
            raise AssertionError(f"{late}\n{self.scope.logs(container)}") from None

    def lb_ready(self) -> bool:
        try:
            return httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def grace_s(self, service: str) -> float:
        return duration_seconds(self.service(service).get("stop_grace_period", "10s"))

    def kill(self, container: str, signal: str = "KILL") -> None:
        podman("kill", "-s", signal, container)
        wait_until(lambda: not self.running(container), 20, f"{container} gone")

    def restart(self, container: str, service: str) -> None:
        """Start a killed container again (same name, address and volumes) until healthy."""
        podman("start", container)
        self.wait_healthy(container, service)

    def running(self, container: str) -> bool:
        done = podman("inspect", "--format", "{{.State.Running}}", container, check=False)
        return done.stdout.strip() == "true"

    def access_log_counts(self, pattern: str) -> Mapping[str, int]:
        """Per replica: its access-log lines whose text matches ``pattern``."""
        regex = re.compile(pattern)
        counts = {}
        for replica in self.replicas:
            done = podman("logs", replica, check=False, timeout=30)
            lines = (done.stdout + done.stderr).splitlines()
            counts[replica] = sum(1 for line in lines if regex.search(line))
        return counts
