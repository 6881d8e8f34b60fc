"""Rematches: a new table for the people of a finished game, the same one for all who ask.

The new table has the same rules and bots; each person's seat is kept for them for a while
(``GameCreated.reserved``: they claim it with their old seat token). Its id is derived from the
old game's, so every instance, and every retry, opens the same table; the old game records it
(``RematchCreated``) so that everyone following it learns where to go.
"""

from __future__ import annotations

from domain import NoteRematch, RuleViolation
from server.service import CommandResult, GameService, rematch_id_of

__all__ = ["open_rematch", "rematch_made"]


async def rematch_made(service: GameService, game_id: str) -> bool:
    """Whether the rematch of ``game_id`` exists already (asking again makes no table)."""
    state = await service.state(game_id)
    return state.rematch is not None or await service.store.exists(rematch_id_of(game_id))


async def open_rematch(service: GameService, game_id: str) -> CommandResult:
    """Open (or find again) the rematch of the finished game ``game_id``: always the table
    the game recorded, once it recorded one."""
    state = await service.state(game_id)
    if state.phase != "ended":
        raise RuleViolation("wrong_phase", "a rematch follows the end of the game")
    key = f"rematch:{game_id}"
    if state.rematch is not None:
        version = await service.store.version(state.rematch)
        invite = await service.invite_of(state.rematch, key) if state.private else None
        return CommandResult(state.rematch, 1, version, duplicate=True, invite=invite)
    bots = [None if p is None or p.bot is None else p.bot for p in state.players]
    people = tuple(seat for seat, kind in enumerate(bots) if kind is None)
    new_id = rematch_id_of(game_id)
    created = await service.create_game(
        state.rules,
        bots,
        key,
        game_id=new_id,
        rematch_of=game_id,
        reserved=people,
        with_creator=False,
        stand_in=state.stand_in,  # the table's choice carries over
        private=state.private,  # and so does a private table's privacy, with an invite of its own
    )
    try:
        await service.run(game_id, [NoteRematch(new_id)], f"rematch:{new_id}")
    except RuleViolation as exc:
        if exc.code != "rematch_exists":  # another request noted it first: the same table
            raise
    return created
