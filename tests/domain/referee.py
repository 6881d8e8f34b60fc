"""An independent referee: re-checks a full (unredacted) event log against RULES.md.

It shares no code with ``domain`` beyond the event types: cards stay as their short codes, and
every rule (kick points, who acts, follow-or-trump, undertrump, trick winners, the awards and
their order, dealer rotation, redeals, the end of the game) is written out again here from the
rules text. Property tests run it over thousands of bot games; scenario tests run it too.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain import (
    Begged,
    CardPlayed,
    Dealt,
    Event,
    GameAborted,
    GameCreated,
    GameEnded,
    GaveOne,
    HandScored,
    PackRun,
    PlayerJoined,
    PlayerLeft,
    PlayerReplaced,
    Redealt,
    RematchCreated,
    Revealed,
    SeatAway,
    SeatBack,
    SeedRevealed,
    Stood,
    TrickWon,
    TrumpSet,
    TurnTimedOut,
)
from domain.rules import Rules

RANK_ORDER = "23456789TJQKA"
GAME_COUNT = {"T": 10, "J": 1, "Q": 2, "K": 3, "A": 4}


def rank(card: str) -> int:
    return RANK_ORDER.index(card[0])


def suit(card: str) -> str:
    return card[1]


def kick_points(card: str, rules: Rules) -> int:
    if card[0] == "A":
        return 1
    if card[0] == "J":
        return 3
    if card[0] == ("2" if rules.tobago_kick else "6"):
        return 2
    return 0


class Foul(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Foul(message)


LIFECYCLE = {
    "TurnTimedOut",
    "SeatAway",
    "SeatBack",
    "PlayerLeft",
    "PlayerReplaced",
    "GameEnded",
    "GameAborted",
}
"""Events a person's choice or the clock may bring at any point of a game in progress."""
TURN_EVENTS = {"Dealt", "Begged", "TrumpSet", "CardPlayed", "TrickWon"}
"""Events after which somebody new (or the trick winner again) must decide: the clock starts."""
TIMED_OUT_AWAY_AFTER = 2
PRESENCE_EVENTS = {"PlayerJoined", "SeatAway", "SeatBack", "PlayerLeft", "PlayerReplaced"}
PAUSED_OUT = {"Dealt", "Stood", "Begged", "GaveOne", "PackRun", "CardPlayed", "TurnTimedOut"}
"""What no one may do while a game is paused (every person away or gone)."""


class Referee:
    """Feed it every event of a game in order (``see``); it raises ``Foul`` at the first event
    the rules do not allow."""

    def __init__(self) -> None:
        self.rules = Rules()
        self.index = 0
        self.created = False
        self.seated: set[int] = set()
        self.dealer = -1
        self.hand_no = 0
        self.deal_no = 0
        self.scores = [0, 0]
        self.ended = False
        self.revealed_seed = False
        self.expect: set[str] = {"GameCreated"}
        self.persons: dict[int, dict[str, bool | int]] = {}
        """Seats held by people: away, left, timeouts in a row."""
        self.turn_at = 0
        self.timed_out: int | None = None
        self.first_card = False
        self.expires_at: int | None = None
        self.takeover_grace = 0
        """RULES.md: an away seat may be taken over this long after its person went away."""
        self.pause_when_absent = False
        self.away_pace = 0
        self.idle_expiry: int | None = None
        self.presence_at = 0
        """When who is at the table last changed: with turn_at, when it was last active."""
        self.rematch = False
        self._new_deal()

    def _new_deal(self) -> None:
        self.hands: list[set[str]] = [set(), set(), set(), set()]
        self.dealt: list[set[str]] = [set(), set(), set(), set()]
        self.deck: list[str] = []
        self.position = 0
        self.kicks: list[str] = []
        self.begged = False
        self.trump: str | None = None
        self.leader = -1
        self.trick: list[tuple[int, str]] = []
        self.won: list[set[str]] = [set(), set()]
        self.tricks = 0

    # --- helpers ----------------------------------------------------------------------------

    def _score(self, team: int, points: int) -> None:
        check(points >= 0, "points are never taken away")
        self.scores[team] += points

    def _after_scoring(self, otherwise: set[str]) -> None:
        """A score just changed: if a team reached the target the game must end right now."""
        target = self.rules.target
        reached = [t for t in (0, 1) if self.scores[t] >= target]
        check(len(reached) <= 1, f"both teams at the target: {self.scores}")
        self.expect = {"GameEnded"} if reached else otherwise

    def _to_act(self) -> int:
        return (self.leader + len(self.trick)) % 4

    # --- events -----------------------------------------------------------------------------

    def see_all(self, events: Sequence[Event]) -> None:
        for event in events:
            self.see(event)

    def see(self, e: Event) -> None:
        self.index += 1
        name = type(e).__name__
        in_progress = self.created and not self.ended
        allowed = self.expect | (LIFECYCLE if in_progress else set())
        check(name in allowed, f"event {self.index}: {name} where {self.expect} was due")
        if name in PAUSED_OUT:
            check(not self._paused(), f"event {self.index}: {name} while everyone is away")
        if name in ("Stood", "Begged", "GaveOne", "PackRun", "CardPlayed"):
            seat = getattr(e, "seat", -1)
            if self.timed_out is None and seat in self.persons:
                self.persons[seat]["timeouts"] = 0  # the person decided for themselves
                person = self.persons[seat]
                if person["away"] and not person["left"] and self.away_pace:
                    check(e.at >= self.turn_at + self.away_pace, "an away seat played early")
        was_paused = self._paused()
        handler = getattr(self, "_" + name)
        handler(e)
        if name in PRESENCE_EVENTS:
            self.presence_at = e.at
        if name in TURN_EVENTS or (was_paused and not self._paused()):
            # A pause stops the clock: play resumes with a fresh turn (README, Lifecycle).
            self.turn_at = e.at
            self.timed_out = None

    def _paused(self) -> bool:
        """RULES.md: with the pause rule, a game under way waits while every person at the
        table is away or gone."""
        if not self.pause_when_absent or not self.created or self.ended or self.hand_no == 0:
            return False
        people = self.persons.values()
        return bool(people) and all(p["away"] or p["left"] for p in people)

    def _to_decide(self) -> int | None:
        """The seat that must decide now, or None (seating, dealing, the end)."""
        if not self.created or self.ended or len(self.seated) < 4 or not self.deck:
            return None
        if self.trump is not None:
            return self._to_act() if "CardPlayed" in self.expect else None
        if self.expect <= {"Stood", "Begged"}:
            return (self.dealer + 1) % 4
        if self.expect <= {"GaveOne", "PackRun"}:
            return self.dealer
        return None

    # --- the lifecycle ------------------------------------------------------------------------

    def _person(self, seat: int) -> dict[str, bool | int]:
        check(seat in self.persons and not self.persons[seat]["left"], f"no person at {seat}")
        return self.persons[seat]

    def _TurnTimedOut(self, e: TurnTimedOut) -> None:
        clock = self.rules.turn_seconds
        check(isinstance(clock, int), "a timeout needs a clock")
        assert isinstance(clock, int)
        check(e.seat == self._to_decide(), f"seat {e.seat} timed out while not to act")
        person = self._person(e.seat)
        check(not person["away"], "an away seat is played at once, never timed")
        check(e.deadline == self.turn_at + clock * 1000, "the deadline is turn start + clock")
        check(e.at >= e.deadline, "a timeout before its deadline")
        person["timeouts"] = int(person["timeouts"]) + 1
        self.timed_out = e.seat

    def _SeatAway(self, e: SeatAway) -> None:
        person = self._person(e.seat)
        check(not person["away"], "away twice")
        if e.reason == "timed_out":
            check(self.timed_out == e.seat, "timed out away right after a timeout")
            check(person["timeouts"] == TIMED_OUT_AWAY_AFTER, "away after 2 timeouts in a row")
        else:
            check(len(self.seated) == 4, "stepping away is for a game in progress")
        person["away"] = True
        person["away_at"] = e.at

    def _SeatBack(self, e: SeatBack) -> None:
        person = self._person(e.seat)
        check(bool(person["away"]), "back without being away")
        person["away"] = False
        person["timeouts"] = 0

    def _PlayerLeft(self, e: PlayerLeft) -> None:
        self._person(e.seat)
        if len(self.seated) < 4 or self.hand_no == 0:
            self.seated.discard(e.seat)
            del self.persons[e.seat]
        else:
            self.persons[e.seat]["left"] = True

    def _PlayerReplaced(self, e: PlayerReplaced) -> None:
        check(e.seat in self.persons, "only a person's seat is taken over")
        old = self.persons[e.seat]
        check(bool(old["left"] or old["away"]), "only a seat left or away is taken over")
        if not old["left"]:
            check(e.at >= int(old["away_at"]) + self.takeover_grace, "taken within the grace")
        self.persons[e.seat] = {"away": False, "left": False, "timeouts": 0}

    def _GameAborted(self, e: GameAborted) -> None:
        if e.reason == "idle":
            check(self.idle_expiry is not None and self.hand_no > 0, "idle needs a limit, a game")
            assert self.idle_expiry is not None
            to_decide = self._to_decide()
            waiting = (
                self.rules.turn_seconds is None
                and to_decide in self.persons
                and not self.persons[to_decide]["away"]
                and not self.persons[to_decide]["left"]
            )
            check(self._paused() or waiting, "idle only while paused, or untimed on a person")
            last = max(self.turn_at, self.presence_at)
            check(e.at >= last + self.idle_expiry, "closed as idle too early")
        elif e.reason == "expired":
            check(self.hand_no == 0, "only a table waiting for players expires")
            check(self.expires_at is not None and e.at >= self.expires_at, "expired early")
        else:
            if e.seat is not None:  # else the table's creator closed it
                self._person(e.seat)
            check(not self.first_card, "abort only before the first card of the game")
        self.ended = True
        self.expect = {"SeedRevealed"}

    def _RematchCreated(self, e: RematchCreated) -> None:
        check(self.revealed_seed and not self.rematch, "one rematch, after the end")
        check(bool(e.game_id), "the rematch names its game")
        self.rematch = True

    def _GameCreated(self, e: GameCreated) -> None:
        self.created = True
        self.expires_at = e.expires_at
        self.takeover_grace = e.takeover_grace_ms
        self.pause_when_absent = e.pause_when_absent
        self.away_pace = e.away_pace_ms
        self.idle_expiry = e.idle_expiry_ms
        self.rules = e.rules
        self.dealer = e.first_dealer
        check(0 <= e.first_dealer <= 3, "the first dealer is a seat")
        self.expect = {"PlayerJoined"}

    def _PlayerJoined(self, e: PlayerJoined) -> None:
        check(e.seat not in self.seated, "a seat is taken once")
        self.seated.add(e.seat)
        if e.bot is None:
            self.persons[e.seat] = {"away": False, "left": False, "timeouts": 0}
        if len(self.seated) == 4:
            self.hand_no, self.deal_no = 1, 1
            self.expect = {"Dealt"}

    def _Dealt(self, e: Dealt) -> None:
        check(e.dealer == self.dealer, f"dealer {e.dealer}, expected {self.dealer}")
        check((e.hand, e.deal) == (self.hand_no, self.deal_no), "hand and deal numbers")
        self._new_deal()
        order = [(self.dealer + 1 + k) % 4 for k in range(4)]
        for seat in order:
            cards = e.hands[seat]
            check(cards is not None and len(cards) == 6, "six cards each")
            assert cards is not None
            self.deck.extend(cards)
            self.hands[seat] = set(cards)
            self.dealt[seat] = set(cards)
        check(e.stock is not None and len(e.stock) == 28, "the stock is the other 28 cards")
        assert e.stock is not None
        self.deck.extend(e.stock)
        check(len(set(self.deck)) == 52, "the deck holds every card once")
        self.position = 24
        self.expect = {"Revealed"}

    def _Revealed(self, e: Revealed) -> None:
        check(e.card == self.deck[self.position], "the kick is the next card of the pack")
        self.position += 1
        points = kick_points(e.card, self.rules)
        check(e.points == points, f"kick {e.card} scores {points}, not {e.points}")
        check(e.team == self.dealer % 2, "kick points go to the dealer's team")
        self.kicks.append(e.card)
        self._score(e.team, points)
        if len(self.kicks) == 1:
            otherwise = {"Stood", "Begged"}
        elif suit(e.card) != suit(self.kicks[0]):
            otherwise = {"TrumpSet"}
        elif len(self.kicks) == 3:
            otherwise = {"Redealt"}
        else:
            otherwise = {"PackRun"}
        self._after_scoring(otherwise)

    def _Stood(self, e: Stood) -> None:
        check(e.seat == (self.dealer + 1) % 4, "the dealer's right stands")
        self.expect = {"TrumpSet"}

    def _Begged(self, e: Begged) -> None:
        check(e.seat == (self.dealer + 1) % 4, "the dealer's right begs")
        check(not self.begged, "one beg a hand")
        self.begged = True
        self.expect = {"GaveOne", "PackRun"}

    def _GaveOne(self, e: GaveOne) -> None:
        check(e.seat == self.dealer, "the dealer gives one")
        begging_team = (self.dealer + 1) % 2
        check(e.team == begging_team and e.points == 1, "one point to the begging team")
        if self.rules.give_one_at_13 == "forbidden":
            check(self.scores[begging_team] != self.rules.target - 1, "give one forbidden")
        self._score(e.team, 1)
        self._after_scoring({"TrumpSet"})

    def _PackRun(self, e: PackRun) -> None:
        check(self.begged and e.seat == self.dealer, "only the dealer runs, after a beg")
        for k in range(4):
            seat = (self.dealer + 1 + k) % 4
            cards = e.hands[seat]
            expected = self.deck[self.position + 3 * k : self.position + 3 * k + 3]
            check(cards is not None and list(cards) == expected, "3 each off the pack in turn")
            self.hands[seat] |= set(expected)
            self.dealt[seat] |= set(expected)
        self.position += 12
        self.expect = {"Revealed"}

    def _TrumpSet(self, e: TrumpSet) -> None:
        check(e.suit == suit(self.kicks[-1]), "trump is the suit of the last kick")
        if len(self.kicks) > 1:
            check(e.suit != suit(self.kicks[0]), "running the pack changes the suit")
        self.trump = e.suit
        self.leader = (self.dealer + 1) % 4
        self.expect = {"CardPlayed"}

    def _Redealt(self, e: Redealt) -> None:
        check(len(self.kicks) == 3 and len({suit(k) for k in self.kicks}) == 1, "exhausted")
        check(e.dealer == self.dealer, "the same dealer redeals")
        self.deal_no += 1
        self.expect = {"Dealt"}

    def _CardPlayed(self, e: CardPlayed) -> None:
        seat, card = e.seat, e.card
        check(seat == self._to_act(), f"seat {seat} played out of turn")
        hand = self.hands[seat]
        check(card in hand, f"seat {seat} does not hold {card}")
        trump = self.trump
        assert trump is not None
        if self.trick:
            led = suit(self.trick[0][1])
            holds_led = any(suit(c) == led for c in hand)
            allowed = {c for c in hand if suit(c) in (led, trump)} if holds_led else set(hand)
            check(card in allowed, f"{card} breaks the follow rule")
            trumps_in_trick = [rank(c) for _, c in self.trick if suit(c) == trump]
            if self.rules.undertrump == "forbidden" and led != trump and trumps_in_trick:
                top = max(trumps_in_trick)
                if suit(card) == trump and rank(card) < top:
                    others = {c for c in allowed if not (suit(c) == trump and rank(c) < top)}
                    check(not others, f"{card} undertrumps while another card was allowed")
        hand.discard(card)
        self.first_card = True
        self.trick.append((seat, card))
        self.expect = {"TrickWon"} if len(self.trick) == 4 else {"CardPlayed"}

    def _TrickWon(self, e: TrickWon) -> None:
        trump = self.trump
        led = suit(self.trick[0][1])
        trumps = [(rank(c), s) for s, c in self.trick if suit(c) == trump]
        followers = [(rank(c), s) for s, c in self.trick if suit(c) == led]
        winner = max(trumps)[1] if trumps else max(followers)[1]
        check(e.seat == winner and e.team == winner % 2, f"trick won by {winner}, not {e.seat}")
        check(list(e.cards) == [c for _, c in self.trick], "the trick's cards in play order")
        self.won[winner % 2] |= {c for _, c in self.trick}
        self.trick = []
        self.leader = winner
        self.tricks += 1
        if any(self.hands):
            self.expect = {"CardPlayed"}
        else:
            check(self.tricks in (6, 9, 12), f"{self.tricks} tricks in a hand")
            self.expect = {"HandScored"}

    def awards(self) -> list[tuple[str, int, int, str | None, int | None]]:
        """Every award of the finished hand, in order, by RULES.md."""
        trump = self.trump
        holder = {c: s for s in range(4) for c in self.dealt[s]}
        trumps = sorted((c for c in holder if suit(c) == trump), key=rank)
        result: list[tuple[str, int, int, str | None, int | None]] = []
        if trumps:
            for kind, card in (("high", trumps[-1]), ("low", trumps[0])):
                result.append((kind, holder[card] % 2, 1, card, holder[card]))
        jack = f"J{trump}"
        if jack in holder:
            taker = 0 if jack in self.won[0] else 1
            check(jack in self.won[taker], "the jack was captured")
            seat = holder[jack]
            if taker == seat % 2:
                result.append(("jack", taker, 1, jack, seat))
            else:
                result.append(("hang_jack", taker, 3, jack, seat))
        counts = [sum(GAME_COUNT.get(c[0], 0) for c in self.won[t]) for t in (0, 1)]
        if counts[0] != counts[1]:
            result.append(("game", 0 if counts[0] > counts[1] else 1, 1, None, None))
        return result

    def _HandScored(self, e: HandScored) -> None:
        counts = tuple(sum(GAME_COUNT.get(c[0], 0) for c in self.won[t]) for t in (0, 1))
        check(tuple(e.game_counts) == counts, f"game counts {e.game_counts}, expected {counts}")
        expected = []
        for kind, team, points, card, seat in self.awards():
            expected.append((kind, team, points, card, seat))
            self._score(team, points)
            if self.scores[team] >= self.rules.target:
                break
        given = [(a.kind, a.team, a.points, a.card, a.seat) for a in e.awards]
        check(given == expected, f"awards {given}, expected {expected}")
        check(list(e.scores) == self.scores, f"scores {e.scores}, expected {self.scores}")
        self.dealer = (self.dealer + 1) % 4
        self.hand_no += 1
        self.deal_no = 1
        self._after_scoring({"Dealt"})

    def _GameEnded(self, e: GameEnded) -> None:
        if e.reason == "resigned":
            check(e.seat is not None and self.hand_no > 0, "a resignation names its seat")
            assert e.seat is not None
            self._person(e.seat)
            check(e.winner == 1 - e.seat % 2, "the resigning team loses")
            check(list(e.scores) == self.scores, "scores stand as they were")
            self.ended = True
            self.expect = {"SeedRevealed"}
            return
        target = self.rules.target
        check(self.scores[e.winner] >= target, "the winner reached the target")
        check(self.scores[1 - e.winner] < target, "the loser did not")
        check(list(e.scores) == self.scores, "final scores")
        self.ended = True
        self.expect = {"SeedRevealed"}

    def _SeedRevealed(self, e: SeedRevealed) -> None:
        self.revealed_seed = True
        self.expect = {"RematchCreated"}
