"""Request and response bodies of the HTTP API (msgspec structs: validated and documented)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec

from domain import PlayerCommand, Rules, View
from domain.wire import BotLevel, CardCode
from server.names import MAX_LENGTH
from server.replay.format import EventEnvelope

SeatNo = Annotated[int, msgspec.Meta(ge=0, le=3, description="Seat 0..3, counterclockwise")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_LENGTH)]
"""Only the length: what a name may hold is :mod:`server.names`' to say (400 ``invalid_name``)."""


class RuleChoices(Rules, frozen=True, forbid_unknown_fields=True):
    """The rule options a new table asks for: any left out takes its default (the Trinidad
    game). The table's rules as recorded (``Rules``, in views and events) name every one."""

    def as_rules(self) -> Rules:
        """These choices as the domain's rules."""
        return Rules(**msgspec.structs.asdict(self))


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    rules: RuleChoices = RuleChoices()
    # A list with a default factory: Litestar documents a tuple with a default as
    # ``oneOf: [<the items>, {}]``, which would let any item through in the spec.
    bots: Annotated[list[BotLevel | None], msgspec.Meta(min_length=4, max_length=4)] = (
        msgspec.field(default_factory=lambda: [None, None, None, None])
    )
    """A bot kind per seat to fill at once, or null to leave the seat open for a person."""
    private: bool = False
    """A private table: not listed in the lobby; seats are taken only with its invitation
    (``invite`` in the answer: share it as a link), bots seated only by its creator or a
    person at it."""
    stand_in: BotLevel | None = None
    """The bot level that plays a person's seat while they are away, after they leave, or
    when their clock runs out; null: the server's choice (``ALLFOURS_STAND_IN``, by default
    ``strong``). The table's view and its ``GameCreated`` event show the level chosen."""


class GameRef(msgspec.Struct, frozen=True):
    """The game a creation or a seating acted on, and its version after it."""

    game_id: str
    """The game's id."""
    version: int
    """The game's version after the call."""
    duplicate: bool = False
    """True when the Idempotency-Key was used before: this is the first call's game."""
    creator_token: str | None = None
    """createGame only: the table's creator token, shown this once (only its hash is kept;
    a retry with the same Idempotency-Key gets it again). Send it as ``Authorization: Bearer``
    to seat bots in the table (addBot) and to close it before its first card (abortTable).
    Null for a rematch (its people hold its seats) and on other calls."""
    invite: str | None = None
    """A private table's invitation (``<game>.invite.<secret>``), the secret that seats a
    person (takeSeat's ``invite``): from createGame (a retry with the same Idempotency-Key
    gets it again) and from createRematch of a private game (everyone who asks gets the
    same). Share it in a link; only its hash is kept. Null otherwise."""


class NameCheck(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Name
    """A name someone means to sit down with: checked against the name policy (the one
    takeSeat applies), so that a page can refuse it before it makes a table."""


class TakeSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Name
    """The name shown for the seat: 1 to 40 characters that show (emoji, joiners where a
    script or an emoji sequence needs them and combining marks are welcome; bidi controls,
    other invisible characters, blank names, spaces at either end and towers of combining
    marks are refused with 400 ``invalid_name``, whose detail says why), and that does not
    look like another seat's name (409 ``name_taken``)."""
    invite: str | None = None
    """A private table's invitation (createGame's ``invite``): without it a private table
    refuses the seat (403)."""


class SeatGranted(msgspec.Struct, frozen=True):
    game_id: str
    """The game's id."""
    seat: int
    """The seat taken."""
    token: str
    """The seat's secret: send it as ``Authorization: Bearer <token>``. Shown only once,
    except to a retry with the same ``Idempotency-Key``, which gets the same token again."""
    version: int
    """The game's version after the seating."""
    duplicate: bool = False
    """True when this answers a retry (same ``Idempotency-Key``) of a seating that happened."""


class AddBot(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    kind: BotLevel = "heuristic"
    """The bot level: random (a random legal move), heuristic (plays sensibly), strong (a
    quick search over the hidden hands) or master (a deeper search). Left out: heuristic."""


class _Body(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    # No lower bound: Litestar drops constraints inside ``X | None`` from the spec, and a
    # negative version simply never matches (409), so there is nothing to refuse with a 400.
    expected_version: int | None = None
    """If given, the command is refused with 409 ``version_conflict`` unless the game is
    exactly at this version."""
    seat: int | None = None
    """Optional: the path's seat acts (its token proves it). Accepted so that a client can
    send an entry of its view's ``legal_actions`` back as it is; if given, it must be the
    path's seat (else 409 ``seat_mismatch``)."""


class StandCommand(_Body, frozen=True, tag="stand"):
    """Accept the kick's suit as trump (the player on the dealer's right)."""


class BegCommand(_Body, frozen=True, tag="beg"):
    """Ask the dealer for another trump (the player on the dealer's right)."""


class GiveOneCommand(_Body, frozen=True, tag="give_one"):
    """Keep the kick's suit and give the begging team one point (the dealer)."""


class RunPackCommand(_Body, frozen=True, tag="run_pack"):
    """Deal three more each and turn up a new kick (the dealer)."""


class PlayCommand(_Body, frozen=True, tag="play"):
    card: CardCode
    """The card to play: a code such as TC (ten of clubs) or AS."""


class StepAwayCommand(_Body, frozen=True, tag="step_away"):
    """Step away: the bot plays your seat at once until you come back (``come_back``)."""


class ComeBackCommand(_Body, frozen=True, tag="come_back"):
    """Come back after stepping away or being marked away after timeouts."""


class LeaveCommand(_Body, frozen=True, tag="leave"):
    """Leave the seat: before the start it opens again; after, the bot plays it to the end
    (and a new person may take it over)."""


class ResignCommand(_Body, frozen=True, tag="resign"):
    """Your team gives up: the other team wins at once."""


class AbortCommand(_Body, frozen=True, tag="abort"):
    """Close the table: only before the first card of the game is played."""


CommandBody = (
    StandCommand
    | BegCommand
    | GiveOneCommand
    | RunPackCommand
    | PlayCommand
    | StepAwayCommand
    | ComeBackCommand
    | LeaveCommand
    | ResignCommand
    | AbortCommand
)


class CommandAccepted(msgspec.Struct, frozen=True):
    game_id: str
    """The game's id."""
    first_version: int
    """The version of the first event this command stored."""
    version: int
    """The game's version after the command (its last event's)."""
    duplicate: bool
    """True when this Idempotency-Key was already applied: the original outcome is returned."""
    events: tuple[EventEnvelope, ...]
    """The events this command stored, as the acting seat may see them."""
    view: View
    """The acting seat's view right after this command (its hand, legal actions and
    deadline): no extra request is needed to keep playing."""


class EventPage(msgspec.Struct, frozen=True):
    game_id: str
    """The game's id."""
    events: tuple[EventEnvelope, ...]
    """Events in version order, redacted for the caller."""
    next_after: int
    """Pass as ``after`` to continue."""
    version: int = 0
    """The game's version when the page was read: while ``next_after`` is below it there is
    more to read now; an ``after`` past it asks for events that do not exist yet (reload the
    view and go on from its version)."""


class Resync(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Data (``{}``) of the SSE message ``event: resync``, the last of a stream that cannot
    go on from where it was asked to start (past the game's version, or the store lost
    events): reload the view and follow again from its version."""


class Health(msgspec.Struct, frozen=True):
    status: Literal["ok", "unavailable"]
    """ok, or unavailable (Redis does not answer)."""


class Hint(msgspec.Struct, frozen=True):
    action: PlayerCommand
    """One of the seat's ``legal_actions``, as the view lists it: send it as it is."""
    win_probability: float
    """The ``master`` bot's estimate (0 to 1) that the seat's team wins the game after this
    action, from the seat's information only."""


class HintList(msgspec.Struct, frozen=True):
    """Hints for one seat at one version of the game."""

    version: int
    """The game's version the hints are for: they are stale once it moves on."""
    seat: int
    """The seat the hints are for."""
    hints: tuple[Hint, ...]
    """Every legal action, best first; empty when the seat is not to act."""

    @classmethod
    def of(cls, version: int, seat: int, ranked: Sequence[tuple[PlayerCommand, float]]) -> HintList:
        return cls(version, seat, tuple(Hint(action, round(p, 4)) for action, p in ranked))


class AnalysedMove(msgspec.Struct, frozen=True):
    """One decision of a finished game beside the ``strong`` bot's choice for that seat."""

    version: int
    """The version of the event that recorded the decision."""
    seat: int
    """The seat that decided."""
    played: PlayerCommand
    """What the seat did."""
    played_win_probability: float
    """The estimated chance (0 to 1) that the seat's team wins after what it did."""
    best: PlayerCommand
    """What the ``strong`` bot would have done, from the same seat's information."""
    best_win_probability: float
    """The estimated chance that the seat's team wins after the bot's choice."""


class Analysis(msgspec.Struct, frozen=True):
    """A finished game's decisions, analysed: only real choices (a forced move is left out)."""

    game_id: str
    """The game's id."""
    moves: tuple[AnalysedMove, ...]
    """In the order they were made."""
