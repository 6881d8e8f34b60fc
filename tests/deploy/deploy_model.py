"""Readers for the files in ``deploy/``: a Dockerfile parser, ``.dockerignore`` matching, an
nginx config reader and a ``redis.conf`` reader, small enough to trust and strict enough that the
tests in this folder check what the files say rather than grep for it.

Only the syntax the deploy files use is supported; anything else raises ``ValueError`` so a new
construct fails the tests loudly instead of being misread.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"

# --------------------------------------------------------------------------------------------
# Dockerfile


@dataclass(frozen=True)
class Instruction:
    """One instruction, continuation lines joined and comment lines dropped (as Docker does)."""

    keyword: str
    """Upper-case: ``RUN``, ``COPY``, ..."""
    args: str
    """Everything after the keyword and its ``--flags``."""
    flags: Mapping[str, str]
    """Leading ``--name=value`` options (``--from``, ``--mount``, ``--interval``...)."""
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON array of an exec-form instruction (``CMD ["a", "b"]``), else None."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        value = json.loads(text)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"line {self.line}: exec form must be a JSON array of strings")
        return value

    def key_values(self) -> list[tuple[str, str]]:
        """``ENV``/``ARG``/``LABEL`` pairs: ``k=v k2="v 2"``, or the legacy ``ENV k v``.

        Values are returned unexpanded (``$PATH`` stays as written).
        """
        words = shlex.split(self.args, posix=True)
        if not words:
            raise ValueError(f"line {self.line}: {self.keyword} without arguments")
        if "=" not in words[0]:
            if self.keyword == "ARG" and len(words) == 1:
                return [(words[0], "")]
            if self.keyword == "ENV":
                return [(words[0], self.args.strip().split(None, 1)[1])]
        pairs = []
        for word in words:
            key, sep, value = word.partition("=")
            if not sep and self.keyword != "ARG":
                raise ValueError(f"line {self.line}: cannot read {word!r}")
            pairs.append((key, value))
        return pairs


@dataclass
class Stage:
    base: str
    name: str | None
    index: int
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None

    def env(self) -> dict[str, str]:
        """ENV values as written (unexpanded), later ones winning."""
        return {k: v for i in self.all("ENV") for k, v in i.key_values()}


@dataclass
class Dockerfile:
    global_args: list[Instruction]
    stages: list[Stage]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)

    @property
    def final(self) -> Stage:
        return self.stages[-1]

    def global_arg_defaults(self) -> dict[str, str]:
        return {k: v for i in self.global_args for k, v in i.key_values()}


_FLAG = re.compile(r"--([a-z][a-z-]*)(?:=(\S+))?\s+")


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Instructions with ``\\``-continuations joined; comment and blank lines skipped, also
    inside a continuation (Docker drops those)."""
    buffer: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not buffer:
            start = number
        if raw.rstrip().endswith("\\"):
            buffer.append(raw.rstrip()[:-1])
            continue
        buffer.append(raw)
        yield start, " ".join(part.strip() for part in buffer)
        buffer = []
    if buffer:
        raise ValueError(f"line {start}: continuation at the end of the file")


def parse_dockerfile(text: str) -> Dockerfile:
    global_args: list[Instruction] = []
    stages: list[Stage] = []
    for number, line in _logical_lines(text):
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        flags: dict[str, str] = {}
        rest = rest.strip() + " "
        while keyword in {"RUN", "COPY", "ADD", "HEALTHCHECK", "FROM"} and (
            match := _FLAG.match(rest)
        ):
            name, value = match.group(1), match.group(2) or ""
            flags[name] = f"{flags[name]} {value}" if name in flags else value
            rest = rest[match.end() :]
        instruction = Instruction(keyword, rest.strip(), flags, number)
        if keyword == "FROM":
            words = instruction.args.split()
            if len(words) == 3 and words[1].upper() == "AS":
                stages.append(Stage(words[0], words[2], len(stages)))
            elif len(words) == 1:
                stages.append(Stage(words[0], None, len(stages)))
            else:
                raise ValueError(f"line {number}: cannot read FROM {instruction.args!r}")
        elif not stages:
            if keyword != "ARG":
                raise ValueError(f"line {number}: only ARG may come before the first FROM")
            global_args.append(instruction)
        else:
            stages[-1].instructions.append(instruction)
    if not stages:
        raise ValueError("no FROM")
    return Dockerfile(global_args, stages)


def load_dockerfile() -> Dockerfile:
    return parse_dockerfile(DOCKERFILE.read_text())


_VAR = re.compile(
    r"\$(?:\{(?P<braced>[A-Za-z_]\w*)(?::-(?P<default>[^}]*))?\}|(?P<bare>[A-Za-z_]\w*))"
)


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """Docker's ``$VAR``, ``${VAR}`` and ``${VAR:-default}`` (unset names become empty)."""

    def replace(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        value = variables.get(name, "")
        if not value and match.group("default") is not None:
            return match.group("default")
        return value

    return _VAR.sub(replace, text)


def healthcheck_command(instruction: Instruction) -> list[str]:
    """The exec-form command of ``HEALTHCHECK [--opts] CMD [...]``."""
    kind, _, command = instruction.args.partition(" ")
    if kind.upper() != "CMD":
        raise ValueError(f"line {instruction.line}: HEALTHCHECK must be `CMD [...]`")
    exec_form = Instruction("CMD", command, {}, instruction.line).exec_form()
    if exec_form is None:
        raise ValueError(f"line {instruction.line}: use the exec form for HEALTHCHECK CMD")
    return exec_form


def duration_seconds(text: str) -> float:
    """``30s``, ``1m30s``, ``1h``, ``500ms`` (Docker, compose and nginx durations), or a bare
    number of seconds."""
    text = str(text).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(float(n) * units[u] for n, u in parts)


# --------------------------------------------------------------------------------------------
# .dockerignore


def _ignore_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


@dataclass(frozen=True)
class DockerIgnore:
    rules: tuple[tuple[bool, re.Pattern[str]], ...]
    """(negated, pattern) in file order; the last matching rule wins, as in Docker."""

    @classmethod
    def load(cls, path: Path = DOCKERIGNORE) -> DockerIgnore:
        rules = []
        text = path.read_text() if path.exists() else ""
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            pattern = line[1:] if negated else line
            pattern = pattern.strip("/").removeprefix("./")
            rules.append((negated, _ignore_regex(pattern)))
        return cls(tuple(rules))

    def excluded(self, relative: str) -> bool:
        """Whether a context-relative path (or one of its parent folders) is left out."""
        parts = relative.strip("/").split("/")
        excluded = False
        for depth in range(1, len(parts) + 1):
            candidate = "/".join(parts[:depth])
            for negated, regex in self.rules:
                if regex.match(candidate):
                    excluded = not negated
            if excluded:
                return True
        return excluded


# --------------------------------------------------------------------------------------------
# nginx


@dataclass
class NginxBlock:
    """A block: its directives (name, args) in order and its child blocks."""

    name: str
    args: list[str]
    directives: list[tuple[str, list[str]]] = field(default_factory=list)
    blocks: list[NginxBlock] = field(default_factory=list)

    def values(self, name: str) -> list[list[str]]:
        return [args for d, args in self.directives if d == name]

    def value(self, name: str) -> list[str] | None:
        found = self.values(name)
        return found[-1] if found else None

    def children(self, name: str) -> list[NginxBlock]:
        return [b for b in self.blocks if b.name == name]

    def child(self, name: str) -> NginxBlock:
        (block,) = self.children(name)
        return block


_NGINX_TOKEN = re.compile(
    r"""(?P<comment>\#[^\n]*)|"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^'\\]|\\.)*)'"""
    r"""|(?P<punct>[{};])|(?P<word>[^\s{};"'#]+)"""
)


def _nginx_tokens(text: str) -> Iterator[str]:
    for match in _NGINX_TOKEN.finditer(text):
        if match.group("comment") is not None:
            continue
        for group in ("dq", "sq", "punct", "word"):
            value = match.group(group)
            if value is not None:
                yield value
                break


def parse_nginx(text: str) -> NginxBlock:
    root = NginxBlock("main", [])
    stack = [root]
    words: list[str] = []
    for token in _nginx_tokens(text):
        if token == ";":
            if not words:
                raise ValueError("empty nginx directive")
            stack[-1].directives.append((words[0], words[1:]))
            words = []
        elif token == "{":
            block = NginxBlock(words[0], words[1:])
            stack[-1].blocks.append(block)
            stack.append(block)
            words = []
        elif token == "}":
            if words or len(stack) == 1:
                raise ValueError("unbalanced nginx block")
            stack.pop()
        else:
            words.append(token)
    if words or len(stack) != 1:
        raise ValueError("unterminated nginx directive or block")
    return root


# --------------------------------------------------------------------------------------------
# redis.conf


def parse_redis_conf(text: str) -> dict[str, list[list[str]]]:
    """Directive name (lower-case) to the argument lists of each of its lines."""
    directives: dict[str, list[list[str]]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, *args = shlex.split(line)
        directives.setdefault(name.lower(), []).append(args)
    return directives


def memory_bytes(text: str) -> int:
    """Redis (``768mb``, ``1gb``) and Kubernetes (``512Mi``, ``1Gi``, ``1G``) sizes."""
    units = {
        "": 1,
        "k": 1000,
        "kb": 1024,
        "m": 1000**2,
        "mb": 1024**2,
        "g": 1000**3,
        "gb": 1024**3,
        "ki": 1024,
        "mi": 1024**2,
        "gi": 1024**3,
    }
    match = re.fullmatch(r"(\d+)([a-zA-Z]*)", str(text).strip())
    if not match or match.group(2).lower() not in units:
        raise ValueError(f"not a memory size: {text!r}")
    return int(match.group(1)) * units[match.group(2).lower()]
