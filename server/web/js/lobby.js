// The lobby's views: the forms to start a game (drawn once, so typing is never lost to a
// redraw) and the lists of tables (redrawn as they change). They never fetch: clicks go to
// the handlers the lobby page passes in.

import { h } from "./dom.js";
import { cardFace } from "./cardview.js";
import { TEAM_NAMES, finishLine, resultLine } from "./narrate.js";

const SEAT_CHOICES = [
  ["you", "You"],
  ["open", "Open seat"],
  ["strong", "Strong bot"],
  ["master", "Master bot"],
  ["heuristic", "Beginner bot"],
  ["random", "Random bot"],
];

/** The bot levels a seat may hold (the rest are people's choices). */
export const BOT_LEVELS = new Set(["random", "heuristic", "strong", "master"]);

/** The four points a hand can score, each with a card that wins it. */
const POINTS = [
  ["AS", "High"],
  ["2C", "Low"],
  ["JH", "Jack"],
  ["TD", "Game"],
];

const CLOCK_CHOICES = [
  ["", "Default"], // left out of the rules: the server records its DEFAULT_TURN_SECONDS (30 s)
  ["none", "No clock"],
  ["15", "15 seconds"],
  ["30", "30 seconds"],
  ["60", "1 minute"],
  ["120", "2 minutes"],
];

function field(label, control, hint) {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), control, hint ? h("span", { class: "hint" }, hint) : null);
}

function select(name, choices, selected) {
  return h("select", { name }, choices.map(([value, text]) => h("option", { value, selected: value === selected }, text)));
}

/** The forms; `problem` (the lobby's refusals) goes under the name, where the person looks. */
export function renderStart(name, handlers, problem) {
  const quick = (event) => {
    event.preventDefault();
    handlers.quickPlay();
  };
  const create = (event) => {
    event.preventDefault();
    handlers.create(new FormData(event.target));
  };
  return h(
    "div",
    { class: "lobby-start" },
    h(
      "section",
      { class: "hero panel", "aria-labelledby": "hero-title" },
      h("h1", { id: "hero-title" }, "All Fours"),
      h("p", { class: "tagline" }, "The national card game of Trinidad and Tobago. Two teams of two; each hand scores High, Low, Jack and Game, and the first team to 14 wins."),
      h("div", { class: "fan", "aria-hidden": "true" }, POINTS.map(([code, name]) => h("figure", {}, cardFace(code), h("figcaption", {}, name)))),
      h(
        "form",
        { class: "quick", onsubmit: quick },
        field("Your name", h("input", { name: "name", id: "player-name", autocomplete: "nickname", maxlength: 40, required: true, value: name, placeholder: "e.g. Ann", oninput: (e) => handlers.rename(e.target.value) })),
        h("button", { type: "submit", class: "primary big", id: "quick-play" }, "Quick play"),
        h("p", { class: "hint" }, "A seat against three strong bots, dealt at once."),
        problem,
      ),
    ),
    h(
      "section",
      { class: "panel new-table", "aria-labelledby": "new-title" },
      h("h2", { id: "new-title" }, "New table"),
      h(
        "form",
        { onsubmit: create, id: "new-table" },
        h(
          "fieldset",
          { class: "seats-choice" },
          h("legend", {}, "Seats"),
          h("p", { class: "hint" }, `Partners sit opposite: seats 1 & 3 are ${TEAM_NAMES[0]}, 2 & 4 are ${TEAM_NAMES[1]}.`),
          [0, 1, 2, 3].map((seat) => field(`Seat ${seat + 1}`, select(`seat${seat}`, SEAT_CHOICES, seat === 0 ? "you" : seat === 2 ? "open" : "strong"))),
        ),
        h(
          "fieldset",
          { class: "rules-choice" },
          h("legend", {}, "Rules"),
          field("Points to win", h("input", { name: "target", type: "number", min: 1, max: 99, value: 14, inputmode: "numeric" })),
          field("Turn clock", select("turn_seconds", CLOCK_CHOICES, "")),
          field("Giving one at 13", select("give_one_at_13", [["allowed", "Allowed"], ["forbidden", "Forbidden: run the pack"]], "allowed")),
          field("Undertrumping", select("undertrump", [["allowed", "Allowed"], ["forbidden", "Forbidden"]], "allowed")),
          h("label", { class: "check" }, h("input", { type: "checkbox", name: "tobago_kick" }), " Tobago kick: a turned-up 2 scores 2"),
        ),
        h(
          "label",
          { class: "check private-choice" },
          h("input", { type: "checkbox", name: "private", id: "private-table" }),
          " Private table: not in the lobby; only people with its invite link may sit",
        ),
        h("button", { type: "submit", class: "primary" }, "Open the table"),
      ),
    ),
  );
}

/** The server names bots after their kind ("heuristic bot"): the lobby just says "Bot". */
const BOT_NAME = /^(heuristic|random|strong|master) bot$/;

/** Whether a rematch still keeps `seat` for a player of the last game at `now`. */
function kept(game, seat, now) {
  return (game.reserved ?? []).includes(seat) && game.reserved_until !== null && now < game.reserved_until;
}

/** The seats a newcomer may take at `now`: the open ones, and a rematch's kept seats once
 *  their time ran out (the listing is written when the game changes, not then). */
export function seatsFree(game, now) {
  const lapsed = (game.reserved ?? []).filter((seat) => !kept(game, seat, now));
  return [...game.open_seats, ...lapsed].sort((a, b) => a - b);
}

function players(game, now) {
  return game.players.map((name, seat) => {
    const bot = name !== null && BOT_NAME.test(name);
    const keptFor = name === null && kept(game, seat, now);
    const until = keptFor ? new Date(game.reserved_until).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : null;
    return h(
      "li",
      {
        class: name === null ? "open" : bot ? "bot" : "",
        title: keptFor ? `Kept for a player of the last game until ${until}` : name === null || bot ? null : name,
      },
      h("span", { class: "seat-no" }, `${seat + 1}`),
      keptFor ? "kept" : name === null ? "open" : bot ? "Bot" : name,
    );
  });
}

/** "Ann's table" (its first person), "A rematch" (its people yet to come back), or "A table
 *  of bots". */
export function tableTitle(game) {
  const person = game.players.find((name) => name !== null && !BOT_NAME.test(name));
  if (person) return `${person}’s table`;
  if (game.rematch_of) return "A rematch";
  return game.players.some((name) => name !== null) ? "A table of bots" : "A new table";
}

/** How long ago: "just now", "5 min ago", "2 h ago", "3 days ago". */
export function ageText(createdAt, now) {
  const minutes = Math.floor(Math.max(0, now - createdAt) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** A table in a list: its name, age and id (then `extra`), its seats, and `actions`. */
export function gameRow(game, actions, extra, now) {
  const title = tableTitle(game);
  return h(
    "li",
    { class: "game-row", "data-game": game.game_id },
    h(
      "div",
      { class: "game-id" },
      h("b", { class: "table-title", title }, title),
      h("span", { class: "age" }, ageText(game.created_at, now)),
      h("code", { class: "muted" }, game.game_id),
      extra,
    ),
    h("ol", { class: "players", "aria-label": "Seats" }, players(game, now)),
    h("div", { class: "row-actions" }, actions),
  );
}

function scoreText(game) {
  return h("span", { class: "score" }, resultLine(game.scores, null));
}

export function renderLists(lists, held, handlers, now) {
  // data-key: the focus stays on its button when the lists are redrawn.
  const link = (href, text, cls = "button") => h("a", { class: cls, href, "data-link": true, "data-key": `${text}-${href}` }, text);
  const section = (id, title, games, empty, each) =>
    h(
      "section",
      { class: "panel games", "aria-labelledby": id },
      h("h2", { id }, title, h("span", { class: "count" }, games ? ` ${games.length}` : "")),
      games === null
        ? h("p", { class: "muted" }, "Loading…")
        : games.length
          ? h("ul", { class: "game-list" }, games.map(each))
          : h("p", { class: "muted" }, empty),
    );
  return h(
    "div",
    { class: "lobby-lists" },
    lists.error ? h("p", { class: "error", role: "alert" }, lists.error) : null,
    section("open-title", "Open tables", lists.open, "No table is waiting for players. Open one!", (game) =>
      gameRow(game, [
        held(game.game_id)
          ? link(`/table/${game.game_id}`, "Return to your seat", "button primary")
          : seatsFree(game, now).map((seat) =>
              h("button", { type: "button", class: "small primary", "data-key": `sit-${game.game_id}-${seat}`, onclick: () => handlers.takeSeat(game.game_id, seat) }, `Sit at ${seat + 1}`),
            ),
        link(`/table/${game.game_id}`, "Watch", "button small"),
      ], null, now),
    ),
    section("live-title", "Playing now", lists.in_progress, "No game in progress.", (game) =>
      gameRow(game, [link(`/table/${game.game_id}`, held(game.game_id) ? "Return to your seat" : "Watch", "button small")], scoreText(game), now),
    ),
    section("done-title", "Finished games", lists.finished, "No finished game yet.", (game) =>
      gameRow(
        game,
        [link(`/replay/${game.game_id}`, "Replay", "button small")],
        h("span", { class: "outcome" }, finishLine(game)),
        now,
      ),
    ),
  );
}
