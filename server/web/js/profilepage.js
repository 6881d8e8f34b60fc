// A player's public profile: their name, rating and record, and their last rated games with
// how each moved the rating (each linked to its replay).

import * as api from "./api.js";
import { h } from "./dom.js";
import { notFoundPage } from "./notfound.js";

export function mountProfile(root, playerId) {
  let unmounted = false;
  root.replaceChildren(h("section", { class: "panel" }, h("p", { class: "muted" }, "Loading…")));
  api
    .getProfile(playerId)
    .then((profile) => !unmounted && root.replaceChildren(renderProfile(profile)))
    .catch((error) => {
      if (unmounted) return;
      root.replaceChildren(
        error.status === 404 || error.status === 400
          ? notFoundPage("No such player", "There is no player ", h("code", {}, playerId), " on this server.")
          : h("section", { class: "panel" }, h("p", { class: "error", role: "alert" }, `The profile could not be loaded: ${error.detail}`)),
      );
    });
  return () => {
    unmounted = true;
  };
}

function changeText(change) {
  return change > 0 ? `+${change}` : change < 0 ? `\u2212${-change}` : "±0";
}

function renderProfile(profile) {
  const { rating, games, wins } = profile.rating;
  return h(
    "section",
    { class: "panel profile", "aria-labelledby": "profile-title", "data-player": profile.player_id },
    h("h1", { id: "profile-title", title: profile.name }, profile.name),
    h("p", { class: "muted" }, "Player id ", h("code", {}, profile.player_id)),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Rating"),
      h("dd", { id: "profile-rating" }, String(rating)),
      h("dt", {}, "Rated games"),
      h("dd", { id: "profile-games" }, String(games)),
      h("dt", {}, "Won"),
      h("dd", { id: "profile-wins" }, String(wins)),
    ),
    h("h2", {}, "Recent rated games"),
    profile.history.length
      ? h(
          "ol",
          { class: "history", id: "profile-history" },
          profile.history.map((game) =>
            h(
              "li",
              { "data-game": game.game_id },
              h("span", { class: game.won ? "won" : "lost" }, game.won ? "Won" : "Lost"),
              ` · ${new Date(game.at).toLocaleDateString()} · rating ${game.rating} (${changeText(game.change)}) · `,
              h("a", { href: `/replay/${encodeURIComponent(game.game_id)}`, "data-link": true }, "Replay"),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No rated game yet."),
  );
}
