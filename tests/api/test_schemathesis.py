"""Schemathesis over every operation of the committed spec (``openapi/openapi.json``: what an
outside client is written from), against the app in-process (ASGI) on the test Redis, with
every check: per operation (examples, coverage and fuzzing phases) and statefully, following
the spec's links (create a game -> take a seat -> act for it / read it / stream it ...).

The SSE operation is included: schemathesis reads a stream up to ``max-stream-events``
messages or its request timeout (short, because a stream never ends by itself), with every
check but the schema's, which reads the stream's schema as a frame (see ``excluded_checks``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar import Litestar
from schemathesis import Case
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import ignored_auth, response_schema_conformance
from support import ROOT

from server.api.app import create_app
from server.settings import Settings

SEATING_STATUSES = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
"""What a schema-valid seating (or name check, or naming a player) may get: schemathesis'
default, and 400. A name's length is all the schema says; what it may hold is the name
policy's (``server.names``), so a schema-valid name may get 400 ``invalid_name``."""
CONFIG = SchemathesisConfig.from_dict(
    {
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            # The spec's own links only: links inferred from listings (``GET /v1/games``)
            # would depend on what other tests left in Redis, and Hypothesis needs
            # scenarios it can replay.
            "stateful": {"enabled": True, "inference": {"algorithms": []}},
        },
        "generation": {"mode": "all", "max-examples": 100},
        "checks": {"enabled": True},
        "request-timeout": 10,
        "max-stream-events": 5,
        "operations": [
            # A live stream only ends when the client leaves: read it briefly.
            {"include-operation-id": "streamEvents", "request-timeout": 0.5},
            *(
                {
                    "include-operation-id": operation,
                    "checks": {"positive_data_acceptance": {"expected-statuses": SEATING_STATUSES}},
                }
                for operation in ("takeSeat", "checkName", "createPlayer", "renameMe")
            ),
        ],
    }
)
schema = schemathesis.openapi.from_path(ROOT / "openapi" / "openapi.json", config=CONFIG)

pytestmark = pytest.mark.timeout(180)

load_all_checks()
ALL_CHECKS = CHECKS.get_all()
assert len(ALL_CHECKS) >= 14, [check.__name__ for check in ALL_CHECKS]


def excluded_checks(case: Case) -> list[Any]:
    """Checks switched off where schemathesis reads the spec otherwise than it is meant:

    - the stream's 200 schema is the type of each message's data, as client generators read
      a response schema (issue 25); schemathesis reads an OpenAPI 3.1 ``text/event-stream``
      schema as the SSE frame (``id``, ``event``, ``data`` as a string) and would refuse every
      message. ``test_stream_schema_and_stand_in.py`` validates each message's data against
      it instead.

    (Litestar 2.x's wrong ``Allow`` on ``OPTIONS /v1/games``, litestar-org/litestar#4169, is
    corrected by ``server.api.edge.allow``; the test at the end of this file keeps it so.)"""
    if case.operation.definition.raw.get("operationId") == "streamEvents":
        return [response_schema_conformance]
    return []


@pytest.fixture(scope="module")
def app(redis_url: str) -> Iterator[Litestar]:
    """The app as ``allfours serve`` builds it, rate limit off (the fuzzer is one client)."""
    # Bots search in a thread of the app (no worker process to wait for: /readyz is 200 at once).
    settings = Settings(redis_url=redis_url, rate_limit=0, sse_heartbeat_s=0.2, bot_workers=0)
    application = create_app(settings)
    yield application
    # Schemathesis started its lifespan (Redis connections) on its own loop: end it now,
    # while the test Redis still runs, rather than at interpreter exit.
    asgi.shutdown_lifespans()


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=100)
def test_operation_conforms_to_the_spec(case: Case, app: Litestar) -> None:
    case.call_and_validate(app=app, checks=ALL_CHECKS, excluded_checks=excluded_checks(case))


def test_stateful_workflows_follow_the_links(app: Litestar) -> None:
    base = schema.as_state_machine()

    class Workflow(base):  # type: ignore[misc,valid-type]
        """Remembers the seat tokens it was granted and presents them where they belong,
        the way a client does: links carry values from bodies, not secrets into headers."""

        def setup(self) -> None:
            self.tokens: dict[tuple[str, int], str] = {}

        def get_call_kwargs(self, case: Case) -> dict[str, Any]:
            return {"app": app}

        def before_call(self, case: Case) -> None:
            if case.headers and case.operation.label == "POST /v1/games":
                # The key names the game it creates: a scenario Hypothesis replays would find
                # the game of an earlier run, in another state, and take other transitions.
                case.headers.pop("Idempotency-Key", None)
            params = case.path_parameters or {}
            token = self.tokens.get((str(params.get("game_id")), params.get("seat", -1)))
            if case.operation.label.endswith("/commands") and token is not None:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}

        def after_call(self, response: Any, case: Case) -> None:
            super().after_call(response, case)
            if case.operation.definition.raw.get("operationId") == "takeSeat" and (
                response.status_code == 201
            ):
                grant = response.json()
                self.tokens[(grant["game_id"], grant["seat"])] = grant["token"]

        def validate_response(
            self,
            response: Any,
            case: Case,
            additional_checks: Any = None,
            **kwargs: Any,
        ) -> None:
            case.validate_response(
                response,
                checks=ALL_CHECKS,
                # ``ignored_auth`` re-sends the request without the token through the
                # schema's default (requests) transport instead of the ASGI app the case
                # was called with, which fails for a spec loaded from a file (schemathesis
                # 4.32, specs/openapi/_auth_retry.py ``send_probe``). The same property is
                # tested directly: test_auth.py refuses every command without a valid token.
                excluded_checks=[*excluded_checks(case), ignored_auth],
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
            )

    Workflow.run(
        settings=settings(
            max_examples=100,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_options_lists_every_method_of_the_games_collection(app: Litestar) -> None:
    """Litestar 2.x alone names one handler's method here (litestar-org/litestar#4169)."""
    with asgi.get_client(app) as client:
        response = client.options("/v1/games")
    assert response.status_code == 204
    # HEAD too: every GET answers it (server.api.edge.head).
    methods = set(response.headers["allow"].replace(" ", "").split(","))
    assert methods == {"GET", "HEAD", "POST", "OPTIONS"}
