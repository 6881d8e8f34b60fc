"""Operational behaviour: configuration from the environment, CORS, request ids, metrics, and
several worker processes behind one socket."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from support import bearer, command_body, create_game, start_server, take_seat

from server.settings import ENV_NAMES, Settings, from_env


def test_settings_come_from_the_environment() -> None:
    settings = from_env(
        {
            "REDIS_URL": "redis://r:6379/0",
            "ALLFOURS_PORT": "9001",
            "ALLFOURS_WORKERS": "3",
            "ALLFOURS_DATA_DIR": "/var/lib/allfours",
            "ALLFOURS_CORS_ORIGINS": "https://a.example, https://b.example",
            "ALLFOURS_SSE_HEARTBEAT_S": "2.5",
            "ALLFOURS_ACCESS_LOG": "false",
        }
    )
    assert settings.redis_url == "redis://r:6379/0"
    assert (settings.port, settings.workers) == (9001, 3)
    assert settings.data_dir == Path("/var/lib/allfours")
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert settings.sse_heartbeat_s == 2.5 and settings.access_log is False
    assert from_env({}) == Settings()


def test_every_setting_has_an_environment_name() -> None:
    assert set(ENV_NAMES) == set(Settings.__struct_fields__)


async def test_cors_request_ids_and_metrics(redis_url: str, tmp_path: Path) -> None:
    server = await start_server(
        redis_url,
        tmp_path,
        {
            "ALLFOURS_CORS_ORIGINS": "https://table.example",
            "ALLFOURS_ACCESS_LOG": "true",
            "ALLFOURS_LOG_LEVEL": "info",
        },
    )
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            preflight = await client.options(
                "/v1/games",
                headers={
                    "Origin": "https://table.example",
                    "Access-Control-Request-Method": "POST",
                },
            )
            assert preflight.headers["access-control-allow-origin"] == "https://table.example"
            other = await client.get("/livez", headers={"Origin": "https://evil.example"})
            assert "access-control-allow-origin" not in other.headers

            echoed = await client.get("/livez", headers={"X-Request-ID": "trace-42"})
            assert echoed.headers["x-request-id"] == "trace-42"
            made = await client.get("/livez")
            assert len(made.headers["x-request-id"]) >= 8

            game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
            token = await take_seat(client, game, 0, "ann")
            seen = (await client.get(f"/v1/games/{game}", headers=bearer(token))).json()
            forbidden = await client.post(
                f"/v1/games/{game}/seats/1/commands", json={"type": "beg"}, headers=bearer(token)
            )
            assert forbidden.status_code == 403
            if seen["legal_actions"]:
                played = await client.post(
                    f"/v1/games/{game}/seats/0/commands",
                    json=command_body(seen["legal_actions"][0]),
                    headers=bearer(token),
                )
                assert played.status_code == 200
            metrics = (await client.get("/metrics")).text
            assert 'path="/v1/games/{game_id}"' in metrics
            assert "allfours_sse_subscribers" in metrics
            assert "allfours_store_append_seconds" in metrics
            if seen["legal_actions"]:
                kind = seen["legal_actions"][0]["type"]
                assert f'allfours_commands_total{{outcome="ok",type="{kind}"}}' in metrics
    finally:
        assert await server.stop() == 0, server.log_tail()
    lines = [
        json.loads(line) for line in server.log_tail(10_000).splitlines() if line.startswith("{")
    ]
    access = [line for line in lines if line.get("logger") == "allfours.access"]
    assert any(line.get("request_id") == "trace-42" for line in access)
    assert all({"method", "path", "status", "duration_ms"} <= set(line) for line in access)


@pytest.mark.e2e
async def test_two_workers_share_one_port_and_stop_cleanly(redis_url: str, tmp_path: Path) -> None:
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_WORKERS": "2"})
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            games = [(await create_game(client, ["random"] * 4))["game_id"] for _ in range(6)]
            for game in games:
                view = (await client.get(f"/v1/games/{game}")).json()
                assert view["phase"] == "ended"
    finally:
        assert await server.stop() == 0, server.log_tail()
