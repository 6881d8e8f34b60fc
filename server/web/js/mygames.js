// "My games": the player's tables, newest first, as rows with what can be done there: back to
// the seat (a seat of another device is taken up here with a fresh token), watch, or replay.
// It never fetches: the page passes the handlers.

import { h } from "./dom.js";
import { gameRow } from "./lobby.js";
import { resultLine, yourFinishLine } from "./narrate.js";

const STATUS_TEXT = { open: "Waiting for players", in_progress: "Playing", finished: "Finished" };

/** The seat `playerId` holds in `game`, or null. */
export function seatOfPlayer(game, playerId) {
  const seat = (game.player_ids || []).indexOf(playerId);
  return seat >= 0 ? seat : null;
}

function row(game, playerId, handlers, now) {
  const seat = seatOfPlayer(game, playerId);
  const action = game.status !== "finished"
    ? h("button", { type: "button", class: "small primary", "data-key": `open-${game.game_id}`, onclick: () => handlers.open(game, seat) }, seat === null ? "Watch" : "Return to your seat")
    : h("a", { class: "button small", href: `/replay/${encodeURIComponent(game.game_id)}`, "data-link": true }, "Replay");
  const result = game.status === "finished" ? yourFinishLine(game, seat) : game.status === "in_progress" ? resultLine(game.scores, null) : "";
  const about = [STATUS_TEXT[game.status] || game.status, seat === null ? null : `seat ${seat + 1}`, result || null].filter(Boolean).join(" · ");
  return gameRow(game, [action], [game.rated ? h("span", { class: "badge" }, "Rated") : null, h("span", { class: "outcome" }, about)], now);
}

/** The list (`games` null while loading); `more` offers the next page. */
export function renderMyGames(games, { playerId, error, more }, handlers, now) {
  return h(
    "section",
    { class: "panel games", "aria-labelledby": "my-games-title" },
    h("h2", { id: "my-games-title" }, "My games"),
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    games === null
      ? h("p", { class: "muted" }, "Loading…")
      : games.length
        ? h("ul", { class: "game-list", id: "my-games" }, games.map((game) => row(game, playerId, handlers, now)))
        : h("p", { class: "muted" }, "No game yet: the tables you sit at are listed here, on any device you use."),
    more ? h("button", { type: "button", class: "small", "data-key": "more-games", onclick: () => handlers.more() }, "More games") : null,
  );
}
