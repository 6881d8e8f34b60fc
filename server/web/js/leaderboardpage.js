// The leaderboard page: the rated players, best first, page by page, each linked to their
// profile; the person's own row is marked.

import * as api from "./api.js";
import { h, redrawer } from "./dom.js";
import { identity } from "./identity.js";

const PAGE = 50;

export function mountLeaderboard(root) {
  let board = null;
  let offset = 0;
  let error = null;
  let unmounted = false;
  const draw = redrawer(root, () => renderBoard(board, offset, error, identity()?.player_id, go));

  async function go(next) {
    try {
      const page = await api.getLeaderboard(next, PAGE);
      if (unmounted) return;
      board = page;
      offset = next;
      error = null;
    } catch (failure) {
      error = `The leaderboard could not be loaded: ${failure.detail}`;
    }
    draw();
  }

  draw();
  go(0);
  return () => {
    unmounted = true;
  };
}

function renderBoard(board, offset, error, me, go) {
  const rows = board?.entries || [];
  return h(
    "section",
    { class: "panel leaderboard", "aria-labelledby": "board-title" },
    h("h1", { id: "board-title" }, "Leaderboard"),
    h("p", { class: "hint" }, "Ratings from rated games: four people, matched by the queue. A newcomer starts at 1500."),
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    board === null && !error
      ? h("p", { class: "muted" }, "Loading…")
      : rows.length
        ? h(
            "table",
            { class: "board", id: "leaderboard" },
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col", class: "num" }, "Rating"), h("th", { scope: "col", class: "num" }, "Games"))),
            h(
              "tbody",
              {},
              rows.map((entry) =>
                h(
                  "tr",
                  { "data-player": entry.player_id, class: entry.player_id === me ? "me" : null, "aria-current": entry.player_id === me ? "true" : null },
                  h("td", {}, String(entry.rank)),
                  h("td", { class: "player-name" }, h("a", { href: `/players/${encodeURIComponent(entry.player_id)}`, "data-link": true, title: entry.name }, entry.name), entry.player_id === me ? " (you)" : ""),
                  h("td", { class: "num" }, String(entry.rating)),
                  h("td", { class: "num" }, String(entry.games)),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, "Nobody is rated yet: play people to be the first."),
    board && board.total > PAGE
      ? h(
          "div",
          { class: "pager" },
          h("button", { type: "button", class: "small", "data-key": "prev", disabled: offset === 0, onclick: () => go(Math.max(0, offset - PAGE)) }, "Better rated"),
          h("span", { class: "muted" }, `${offset + 1}\u2013${offset + rows.length} of ${board.total}`),
          h("button", { type: "button", class: "small", "data-key": "next", disabled: offset + PAGE >= board.total, onclick: () => go(offset + PAGE) }, "Next"),
        )
      : null,
  );
}
