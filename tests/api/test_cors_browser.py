"""A browser client on another origin, in a real browser (Debian's chromium, driven by
Playwright): a page served from one loopback port plays against ``allfours serve`` on another,
with ``fetch`` and ``EventSource`` only, and must be able to read every header the contract
documents (``ETag``, ``X-Request-ID``, ``Retry-After``, ``WWW-Authenticate``).

Chromium enforces CORS as any browser does: a header the server does not name in
``Access-Control-Expose-Headers`` reads as ``null`` in the page.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from chromium import browser_page
from support import ROOT, ServerProcess, free_port, start_server

RATE_LIMIT = 20
"""Writes per minute and client: enough to play, and a burst of bad requests reaches 429."""

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>a table on another origin</title></head><body>
<script>
async function call(api, method, path, {token, body, headers} = {}) {
  const sent = {...(headers || {})};
  if (token) sent["Authorization"] = "Bearer " + token;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  const answer = await fetch(api + path, {
    method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  return {
    status: answer.status,
    etag: answer.headers.get("ETag"),
    requestId: answer.headers.get("X-Request-ID"),
    retryAfter: answer.headers.get("Retry-After"),
    challenge: answer.headers.get("WWW-Authenticate"),
    body: text ? JSON.parse(text) : null,
  };
}

function follow(url, names, events) {
  const source = new EventSource(url);
  let wake = () => {};
  for (const name of names) {
    source.addEventListener(name, (message) => {
      events.push({id: message.lastEventId, event: message.type, data: JSON.parse(message.data)});
      wake();
    });
  }
  const next = () => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no event for 10 s")), 10000);
    wake = () => { clearTimeout(timer); resolve(); };
  });
  return {source, next};
}

async function play(api, names) {
  const out = {};
  out.created = await call(api, "POST", "/v1/games",
                           {body: {bots: [null, "random", "random", "random"]}});
  const game = out.created.body.game_id;
  out.seat = await call(api, "POST", `/v1/games/${game}/seats/0`, {body: {name: "ann"}});
  const token = out.seat.body.token;
  out.events = [];
  const url = `${api}/v1/games/${game}/stream?token=${encodeURIComponent(token)}`;
  const stream = follow(url, names, out.events);
  for (let turn = 0; turn < 60 && !out.played; turn++) {
    const view = await call(api, "GET", `/v1/games/${game}`, {token});
    out.view = view;
    if (view.body.to_act !== 0 || !view.body.legal_actions.length) {
      await stream.next();
      continue;
    }
    const action = view.body.legal_actions.find((a) => a.type === "play")
      || view.body.legal_actions[0];
    const {seat, ...command} = action;
    const answer = await call(api, "POST", `/v1/games/${game}/seats/0/commands`,
                              {token, body: command});
    if (action.type === "play") out.played = {card: action.card, answer};
  }
  while (!out.events.some((e) => e.event === "CardPlayed" && e.data.seat === 0)) {
    await stream.next();
  }
  stream.source.close();
  out.traced = await call(api, "GET", `/v1/games/${game}`,
                          {token, headers: {"X-Request-ID": "browser-trace-1"}});
  out.cached = await call(api, "GET", `/v1/games/${game}`,
                          {token, headers: {"If-None-Match": out.traced.etag}});
  out.unauthorized = await call(api, "GET", `/v1/games/${game}`, {token: "no.such.token"});
  for (let burst = 0; burst < 40 && !(out.limited && out.limited.status === 429); burst++) {
    out.limited = await call(api, "POST", "/v1/games", {body: {bots: "none"}});
  }
  return out;
}
</script></body></html>
"""


class _PageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args  # quiet: pytest shows failures, not every page load


@pytest.fixture(scope="module")
def page_origin() -> Iterator[str]:
    """A static HTTP server for the page, on its own loopback port: another origin."""
    port = free_port()
    httpd = ThreadingHTTPServer(("127.0.0.1", port), _PageHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


@pytest.fixture(scope="module")
async def api_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory, page_origin: str
) -> AsyncIterator[ServerProcess]:
    """The API, allowing the page's origin, with a rate limit the page can reach."""
    process = await start_server(
        redis_url,
        tmp_path_factory.mktemp("cors-browser"),
        {"ALLFOURS_CORS_ORIGINS": page_origin, "ALLFOURS_RATE_LIMIT": str(RATE_LIMIT)},
    )
    yield process
    assert await process.stop() == 0, process.log_tail()


def event_names() -> list[str]:
    """Every SSE event name the spec documents (the event types, and ``resync``)."""
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    envelope = spec["components"]["schemas"]["EventEnvelope"]["properties"]["event"]
    return [ref["$ref"].rsplit("/", 1)[1] for ref in envelope["oneOf"]] + ["resync"]


async def test_a_page_on_another_origin_plays_and_reads_the_contract_headers(
    api_server: ServerProcess, page_origin: str
) -> None:
    async with browser_page() as (page, errors):
        await page.goto(page_origin)
        out: dict[str, Any] = await page.evaluate(
            "([api, names]) => play(api, names)", [api_server.url, event_names()]
        )
    assert not errors, errors

    assert out["created"]["status"] == 201 and out["seat"]["status"] == 201, out
    for answer in (out["created"], out["seat"], out["view"], out["unauthorized"]):
        assert answer["requestId"] and len(answer["requestId"]) >= 8, answer
    assert out["traced"]["requestId"] == "browser-trace-1"
    assert re.fullmatch(r'W/"\d+-0"', out["traced"]["etag"] or ""), out["traced"]
    assert out["cached"]["status"] in (200, 304), out["cached"]  # 304 unless a bot moved
    assert out["cached"]["etag"], out["cached"]
    assert out["unauthorized"]["status"] == 401
    assert (out["unauthorized"]["challenge"] or "").startswith("Bearer"), out["unauthorized"]
    assert out["limited"]["status"] == 429, out["limited"]
    assert int(out["limited"]["retryAfter"]) >= 1, out["limited"]

    played = out["played"]
    assert played["answer"]["status"] == 200, played
    events = out["events"]
    assert events[0]["event"] == "GameCreated" and events[0]["id"] == "1", events[:1]
    assert [int(e["id"]) for e in events] == list(range(1, len(events) + 1))
    dealt = next(e["data"] for e in events if e["event"] == "Dealt")
    assert dealt["hands"][0] is not None, "the token in the query did not make the seat's view"
    assert {"seat": 0, "card": played["card"]}.items() <= next(
        e["data"] for e in events if e["event"] == "CardPlayed" and e["data"]["seat"] == 0
    ).items()
