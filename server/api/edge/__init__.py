"""The edge: what wraps or guards every request before a route sees it and every answer after
(connection and stream caps, rate limits, body checks, CORS, Allow/HEAD, security headers,
request logs and metrics)."""
