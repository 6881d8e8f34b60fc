"""The contract: the request and response bodies, the problem details and their codes, and what
documents them in the OpenAPI spec (operation helpers, field docs, the spec's own text)."""
