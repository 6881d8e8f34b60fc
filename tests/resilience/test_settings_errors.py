"""A wrong setting is named in one line (``ALLFOURS_PORT: expected an integer, got 'abc'``) and
``allfours serve`` exits with status 2, without a traceback and before starting anything."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support import allfours_command

from server.settings import Settings, SettingsError, from_env

BAD = [
    ({"ALLFOURS_PORT": "abc"}, "ALLFOURS_PORT: expected an integer, got 'abc'"),
    ({"ALLFOURS_PORT": "70000"}, "ALLFOURS_PORT: expected an integer from 0 to 65535, got '70000'"),
    ({"ALLFOURS_WORKERS": "0"}, "ALLFOURS_WORKERS: expected an integer of at least 1, got '0'"),
    ({"ALLFOURS_CACHE_SIZE": "١٢"}, "ALLFOURS_CACHE_SIZE: expected an integer, got '١٢'"),
    (
        {"ALLFOURS_RATE_LIMIT": "-5"},
        "ALLFOURS_RATE_LIMIT: expected a non-negative integer, got '-5'",
    ),
    (
        {"ALLFOURS_SSE_HEARTBEAT_S": "0"},
        "ALLFOURS_SSE_HEARTBEAT_S: expected a number above 0, got '0'",
    ),
    (
        {"ALLFOURS_SHUTDOWN_GRACE_S": "nan"},
        "ALLFOURS_SHUTDOWN_GRACE_S: expected a number, got 'nan'",
    ),
    ({"ALLFOURS_ACCESS_LOG": "maybe"}, "ALLFOURS_ACCESS_LOG: expected true or false, got 'maybe'"),
    (
        {"ALLFOURS_APPENDFSYNC": "sometimes"},
        "ALLFOURS_APPENDFSYNC: expected one of always, everysec, no, got 'sometimes'",
    ),
    (
        {"ALLFOURS_LOG_LEVEL": "loud"},
        "ALLFOURS_LOG_LEVEL: expected one of critical, error, warning, info, debug, trace, "
        "got 'loud'",
    ),
    (
        {"REDIS_URL": "localhost:6379"},
        "REDIS_URL: expected a URL starting with one of redis://, rediss://, unix://, "
        "redis+cluster://, rediss+cluster://, got 'localhost:6379'",
    ),
]


@pytest.mark.parametrize(("env", "message"), BAD, ids=[next(iter(env)) for env, _ in BAD])
def test_a_bad_value_is_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as refused:
        from_env(env)
    assert str(refused.value) == message


def test_good_values_in_their_usual_spellings() -> None:
    settings = from_env(
        {
            "ALLFOURS_PORT": " 8080 ",
            "ALLFOURS_ACCESS_LOG": "off",
            "ALLFOURS_LOG_LEVEL": "WARNING",
            "ALLFOURS_APPENDFSYNC": "everysec",
            "ALLFOURS_REDIS_DOWN_LIMIT_S": "0",
            "REDIS_URL": "unix:///run/redis.sock",
        }
    )
    assert (settings.port, settings.access_log, settings.log_level) == (8080, False, "warning")
    assert (settings.appendfsync, settings.redis_down_limit_s) == ("everysec", 0.0)
    assert settings.redis_url == "unix:///run/redis.sock"
    assert from_env({"ALLFOURS_PORT": ""}) == Settings()  # empty is unset


def run_serve(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("ALLFOURS_")}
    child_env.pop("REDIS_URL", None)
    child_env["ALLFOURS_DATA_DIR"] = str(tmp_path / "data")
    return subprocess.run(
        [*allfours_command(), "serve", *args],
        env={**child_env, **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "args", "line"),
    [
        ({"ALLFOURS_PORT": "abc"}, (), "ALLFOURS_PORT: expected an integer, got 'abc'"),
        ({"ALLFOURS_WORKERS": "two"}, (), "ALLFOURS_WORKERS: expected an integer, got 'two'"),
        ({}, ("--workers", "0"), "--workers: expected an integer of at least 1, got 0"),
    ],
    ids=["port", "workers", "option"],
)
def test_serve_names_the_bad_setting_in_one_line_and_exits_2(
    tmp_path: Path, env: dict[str, str], args: tuple[str, ...], line: str
) -> None:
    done = run_serve(tmp_path, env, *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr == line + "\n"
    assert done.stdout == ""
    assert not (tmp_path / "data").exists()  # refused before starting anything
