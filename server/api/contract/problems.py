"""RFC 9457 problem details: every error the API returns, with a stable machine ``code``.

One function maps each exception kind to a status and code, so a client can branch on
``code`` alone and every operation documents the same ``Problem`` schema.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    InternalServerException,
    MethodNotAllowedException,
    NotFoundException,
    ValidationException,
)
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_401_UNAUTHORIZED,
    HTTP_403_FORBIDDEN,
    HTTP_404_NOT_FOUND,
    HTTP_405_METHOD_NOT_ALLOWED,
    HTTP_408_REQUEST_TIMEOUT,
    HTTP_409_CONFLICT,
    HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    HTTP_415_UNSUPPORTED_MEDIA_TYPE,
    HTTP_422_UNPROCESSABLE_ENTITY,
    HTTP_429_TOO_MANY_REQUESTS,
    HTTP_431_REQUEST_HEADER_FIELDS_TOO_LARGE,
    HTTP_500_INTERNAL_SERVER_ERROR,
    HTTP_503_SERVICE_UNAVAILABLE,
)

from domain import VIOLATION_CODES, RuleViolation
from server.api.contract.error_codes import ERROR_CODES
from server.errors import (
    ServiceError,
    VersionConflict,
)
from server.store import StoreError, StoreUnavailable

PROBLEM_MEDIA_TYPE = "application/problem+json"
_log = logging.getLogger("allfours.api")


STATUS_OF: dict[str, int] = {code: entry.status for code, entry in ERROR_CODES.items()}
"""The status each problem code comes with (what ``_to_problem`` does; a test holds them to
it), so each operation's spec can list its codes under the right status."""
REQUEST_CODES: tuple[str, ...] = tuple(c for c in ERROR_CODES if c not in VIOLATION_CODES)
"""Codes of problems that are not the rules': requests, auth, limits and outages."""
PROBLEM_CODES: tuple[str, ...] = (*VIOLATION_CODES, *REQUEST_CODES)
ProblemCode = Literal[PROBLEM_CODES]  # type: ignore[valid-type]
"""Every ``code`` a problem can carry: an enum in the spec, so clients can switch on it."""
_CODE_DOC = "Stable machine-readable code: branch on this.\n\n" + "\n".join(
    f"- ``{code}`` ({entry.status}): {entry.meaning}" for code, entry in ERROR_CODES.items()
)


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """An error, as RFC 9457 problem details plus a stable ``code``."""

    type: str
    """A URI naming the kind of problem (``urn:allfours:problem:<code>``)."""
    title: str
    """A short summary of the status."""
    status: int
    """The HTTP status code."""
    code: Annotated[
        ProblemCode,
        msgspec.Meta(description=_CODE_DOC),
    ]
    detail: str | None = None
    """What went wrong with this request, for a person to read."""
    instance: str | None = None
    """The request's path."""
    current_version: int | None = None
    """With ``version_conflict``: the game's version now."""
    retry_after: int | None = None
    """With ``rate_limited``, ``unavailable`` and ``busy``: seconds to wait (also a header)."""


class RateLimited(Exception):
    """A limit on the client was reached (``code`` says which): retry after ``retry_after`` s."""

    def __init__(
        self, retry_after: int, code: str = "rate_limited", detail: str = "slow down"
    ) -> None:
        super().__init__(detail)
        self.retry_after = retry_after
        self.code = code
        self.detail = detail


# Rule violations that are about the request itself rather than the game's moment.
_UNPROCESSABLE_RULES = {c for c in VIOLATION_CODES if STATUS_OF[c] == 422}

_TITLES = {
    HTTP_400_BAD_REQUEST: "Bad request",
    HTTP_401_UNAUTHORIZED: "Unauthorized",
    HTTP_403_FORBIDDEN: "Forbidden",
    HTTP_404_NOT_FOUND: "Not found",
    HTTP_405_METHOD_NOT_ALLOWED: "Method not allowed",
    HTTP_408_REQUEST_TIMEOUT: "Request timeout",
    HTTP_409_CONFLICT: "Conflict",
    HTTP_413_REQUEST_ENTITY_TOO_LARGE: "Request body too large",
    HTTP_415_UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
    HTTP_422_UNPROCESSABLE_ENTITY: "Unprocessable request",
    HTTP_429_TOO_MANY_REQUESTS: "Too many requests",
    HTTP_431_REQUEST_HEADER_FIELDS_TOO_LARGE: "Request header fields too large",
    HTTP_500_INTERNAL_SERVER_ERROR: "Internal error",
    HTTP_503_SERVICE_UNAVAILABLE: "Service unavailable",
}


def problem_of(
    status: int,
    code: str,
    detail: str | None,
    *,
    instance: str | None = None,
    current_version: int | None = None,
    retry_after: int | None = None,
) -> Problem:
    """The problem for ``code``, as every answer writes it."""
    return Problem(
        type=f"urn:allfours:problem:{code}",
        title=_TITLES.get(status, "Error"),
        status=status,
        code=code,
        detail=detail,
        instance=instance,
        current_version=current_version,
        retry_after=retry_after,
    )


def problem_body(
    status: int,
    code: str,
    detail: str,
    *,
    instance: str | None = None,
    retry_after: int | None = None,
) -> bytes:
    """A problem's JSON for the answers written below the app (connection and stream caps),
    in the same form as the app's own."""
    return msgspec.json.encode(
        problem_of(status, code, detail, instance=instance, retry_after=retry_after)
    )


def problem_response(
    request: Request[Any, Any, Any] | None,
    status: int,
    code: str,
    detail: str | None,
    *,
    current_version: int | None = None,
    retry_after: int | None = None,
    headers: dict[str, str] | None = None,
) -> Response[Problem]:
    problem = problem_of(
        status,
        code,
        detail,
        instance=None if request is None else request.url.path,
        current_version=current_version,
        retry_after=retry_after,
    )
    headers = dict(headers or {})
    if status == HTTP_401_UNAUTHORIZED:
        headers["WWW-Authenticate"] = 'Bearer realm="allfours seat"'
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return Response(
        problem, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers or None
    )


CLIENT_CLOSED_REQUEST = 499
"""nginx's status for a request its client gave up on: what logs and metrics count when the
client closed the connection before its body came. Nobody receives it; as a 500 it was
counted as the server's failure."""
READ_DEADLINE = "allfours.read_deadline"
"""The ASGI scope's mark of a request whose body the read deadline cut off (the connection
answered 408 ``request_timeout``): its handler counts a 408, not a 499."""
_GONE_MIDWAY = "client disconnected prematurely"
"""What Litestar raises (an ``InternalServerException``) when the connection ends mid-body."""


def _to_problem(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if isinstance(exc, InternalServerException) and exc.detail == _GONE_MIDWAY:
        cut_off = request.scope.get(READ_DEADLINE, False)
        return Response(b"", status_code=408 if cut_off else CLIENT_CLOSED_REQUEST)
    if isinstance(exc, RuleViolation):
        status = HTTP_422_UNPROCESSABLE_ENTITY if exc.code in _UNPROCESSABLE_RULES else 409
        return problem_response(request, status, exc.code, exc.message)
    if isinstance(exc, VersionConflict):
        return problem_response(
            request, 409, exc.code, exc.message, current_version=exc.current_version
        )
    if isinstance(exc, ServiceError):
        status = STATUS_OF.get(exc.code, HTTP_400_BAD_REQUEST)
        retry = 1 if status == HTTP_503_SERVICE_UNAVAILABLE else None
        return problem_response(request, status, exc.code, exc.message, retry_after=retry)
    if isinstance(exc, RateLimited):
        return problem_response(request, 429, exc.code, exc.detail, retry_after=exc.retry_after)
    if isinstance(exc, StoreUnavailable):
        detail = "the event store is unavailable; retry shortly"
        return problem_response(request, 503, "unavailable", detail, retry_after=1)
    if isinstance(exc, StoreError):
        # Not an outage (a script error, a key of the wrong type...): a bug, with its trace.
        _log.error("store error on %s", request.url.path, exc_info=exc)
        return problem_response(request, 500, "internal", "an unexpected error occurred")
    if isinstance(exc, ValidationException):
        if _is_unknown_card(exc):
            # The card enum is checked while parsing the body, before the rules see it: keep
            # the rules' code and status for it, as documented.
            return problem_response(request, 422, "unknown_card", _validation_detail(request, exc))
        return problem_response(request, 400, "invalid_request", _validation_detail(request, exc))
    if isinstance(exc, NotFoundException):
        return problem_response(request, 404, "not_found", exc.detail)
    if isinstance(exc, MethodNotAllowedException):
        # Keep the ``Allow`` header the router computed (RFC 9110 requires it with a 405).
        return problem_response(request, 405, "method_not_allowed", exc.detail, headers=exc.headers)
    if isinstance(exc, HTTPException):
        code = {
            413: "payload_too_large",
            415: "unsupported_media_type",
            401: "unauthorized",
            403: "forbidden",
        }.get(exc.status_code, "invalid_request" if exc.status_code < 500 else "internal")
        return problem_response(request, exc.status_code, code, exc.detail, headers=exc.headers)
    _log.exception("unhandled error on %s", request.url.path, exc_info=exc)
    return problem_response(request, 500, "internal", "an unexpected error occurred")


def _is_unknown_card(exc: ValidationException) -> bool:
    extra = exc.extra
    return (
        isinstance(extra, list)
        and len(extra) == 1
        and isinstance(extra[0], dict)
        and extra[0].get("key") == "card"
        and extra[0].get("source") == "body"
        and str(extra[0].get("message", "")).startswith("Invalid enum value")
    )


def _validation_detail(request: Request[Any, Any, Any], exc: ValidationException) -> str:
    """What was wrong, naming the path but never the query: Litestar's own detail repeats the
    whole URL, a ``?token=`` included (a secret has no place in an answer or its logs)."""
    detail = str(exc.detail)
    if detail.startswith("Validation failed for "):
        detail = f"Validation failed for {request.method} {request.url.path}"
    extra = exc.extra
    if isinstance(extra, list) and extra:
        first = extra[0]
        if isinstance(first, dict):
            return f"{detail}: {first.get('message', '')} ({first.get('key', '')})"
    return detail


EXCEPTION_HANDLERS = {Exception: _to_problem}
