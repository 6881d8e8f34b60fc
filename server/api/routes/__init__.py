"""The routes: one module per group of operations (games, their streams, health, replay
verification, the web client's pages, the docs page), each a thin handler over the service."""
