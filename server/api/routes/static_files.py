"""Files served from a directory of the package (the web client, Swagger UI), with a 404 that
names nothing on disk.

Litestar's own 404 for a static path says which path it looked for, resolved on disk for a
directory: ``GET /static/js/`` answered ``no file or directory match the path
/…/site-packages/server/web/js was found``, the install directory for anyone who asks. Here a
miss is the API's usual ``not_found`` problem, with a detail that says nothing about the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Response, Router
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import NotFoundException
from litestar.static_files import create_static_files_router

from server.api.contract.problems import Problem, problem_response

__all__ = ["static_files_router"]


def static_files_router(
    path: str, directory: Path, name: str, cache_control: CacheControlHeader | None = None
) -> Router:
    """The files under ``directory`` at ``path`` (the route ``name``, for ``route_reverse``),
    kept out of the OpenAPI document."""
    return create_static_files_router(
        path=path,
        directories=[directory],
        name=name,
        cache_control=cache_control,
        exception_handlers={NotFoundException: _no_such_file},
        include_in_schema=False,
    )


def _no_such_file(request: Request[Any, Any, Any], exc: NotFoundException) -> Response[Problem]:
    del exc  # its detail is the path on disk
    return problem_response(request, 404, "not_found", "no such file")
