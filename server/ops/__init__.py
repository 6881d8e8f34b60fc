"""The operator's toolbox: ``allfours archive``, ``expire``, ``rebuild-lobby`` and ``check``.

Each works on the Redis the server uses (``REDIS_URL``, or the embedded one's socket in the
data directory while ``allfours serve`` runs) and may run beside live servers.
"""
