"""The replay file format and its archive: what export, the archive job, ``getReplay`` and the
replay viewer all read and write. It sits below the HTTP API and the operator tools, which both
use it (neither imports the other)."""
