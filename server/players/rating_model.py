"""The rating maths, from a maintained library: openskill's Plackett-Luce model rates teams
(each player a mean ``mu`` and an uncertainty ``sigma``; a team game moves both partners), is
open source, and has no patent on it (TrueSkill's). A player's shown rating is the
conservative estimate ``mu - 3 sigma``, scaled: 1500 for a newcomer, rising as games make
the estimate surer, and falling with losses."""

from __future__ import annotations

from typing import NamedTuple

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()
_SCALE = 40.0
_BASE = 1500.0


class Skill(NamedTuple):
    mu: float
    sigma: float

    @property
    def rating(self) -> int:
        return round(_BASE + _SCALE * (self.mu - 3 * self.sigma))


NEWCOMER = Skill(_MODEL.mu, _MODEL.sigma)


def rate(skills: tuple[Skill, Skill, Skill, Skill], winner: int) -> tuple[Skill, ...]:
    """The four seats' skills after a game ``winner`` (0: seats 0 and 2) won, seat order."""
    teams = [
        [_MODEL.create_rating([skills[seat].mu, skills[seat].sigma]) for seat in (team, team + 2)]
        for team in (0, 1)
    ]
    ranks = [0.0, 1.0] if winner == 0 else [1.0, 0.0]
    (a, c), (b, d) = _MODEL.rate(teams, ranks=ranks)
    return tuple(Skill(r.mu, r.sigma) for r in (a, b, c, d))
