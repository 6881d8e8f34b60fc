// The replay viewer's views: the picker (a game id or a replay file dropped on the page) and
// the viewer (the table at a position of the log, every hand face-up, the deal check). They
// never fetch; steps and picks go to the handlers the replay page passes in.

import { h } from "./dom.js";
import { cardName, sortHand } from "./cards.js";
import { cardFace } from "./cardview.js";
import { POSITIONS, handFacts, kicksCorner, trickCross } from "./felt.js";
import { bookOf } from "./handbook.js";
import { TEAM_NAMES, finishLine, narrate, scoreLine, seatLabel } from "./narrate.js";
import { tableAt } from "./replaystate.js";
import { pointItem, scoreSheet } from "./summary.js";

export function renderPicker(model, handlers) {
  const open = (event) => {
    event.preventDefault();
    const id = new FormData(event.target).get("game").trim();
    if (id) handlers.openId(id);
  };
  const drop = (event) => {
    event.preventDefault();
    event.currentTarget.classList.remove("over");
    const file = event.dataTransfer?.files?.[0];
    if (file) handlers.openFile(file);
  };
  return h(
    "section",
    { class: "replay-pick", "aria-labelledby": "pick-title" },
    h("h1", { id: "pick-title" }, "Replay a game"),
    h(
      "form",
      { class: "panel", onsubmit: open },
      h("label", { class: "field" }, h("span", { class: "field-label" }, "Game id"), h("input", { name: "game", required: true, placeholder: "e.g. 5f0c2b8e9a1d4e77", autocomplete: "off" })),
      h("button", { type: "submit", class: "primary" }, "Open the replay"),
    ),
    h(
      "div",
      {
        class: "drop",
        id: "drop",
        ondragover: (event) => {
          event.preventDefault();
          event.currentTarget.classList.add("over");
        },
        ondragleave: (event) => event.currentTarget.classList.remove("over"),
        ondrop: drop,
      },
      h("p", {}, "Drop a replay file (", h("code", {}, "allfours-replay"), " JSON) here, or"),
      h(
        "label",
        { class: "button" },
        "Choose a file…",
        h("input", { type: "file", accept: ".json,application/json", class: "sr-only", id: "replay-file", onchange: (event) => event.target.files[0] && handlers.openFile(event.target.files[0]) }),
      ),
    ),
    h("p", { class: "error", role: "alert" }, model.error || ""),
    model.finished?.length
      ? h(
          "section",
          { class: "panel", "aria-labelledby": "recent-title" },
          h("h2", { id: "recent-title" }, "Recently finished"),
          h(
            "ul",
            { class: "game-list" },
            model.finished.map((game) =>
              h(
                "li",
                { class: "game-row" },
                h("a", { href: `/replay/${encodeURIComponent(game.game_id)}`, "data-link": true }, h("code", {}, game.game_id)),
                h("span", {}, finishLine(game)),
              ),
            ),
          ),
        )
      : null,
  );
}

export function renderReplay(model, handlers) {
  const { events, position } = model;
  const table = tableAt(events, position);
  const current = position > 0 ? narrate(events[position - 1], table.names, null) : null;
  return h(
    "section",
    { class: "replay", "data-position": position, "data-total": events.length, "aria-labelledby": "replay-title" },
    h(
      "div",
      { class: "replay-head" },
      h("h1", { id: "replay-title" }, "Replay ", h("code", {}, model.gameId || model.fileName || "")),
      model.gameId ? h("a", { class: "button small", href: `/table/${encodeURIComponent(model.gameId)}`, "data-link": true }, "Open its table") : null,
    ),
    verification(model.verification),
    h(
      "div",
      { class: "table-layout" },
      h(
        "div",
        { class: "table-main" },
        h(
          "div",
          { class: "replay-steps" },
          stepper(model, handlers),
          h("p", { class: "now", "aria-live": "polite", id: "replay-now" }, current || "The start: press → to step through the game."),
          analysisLine(model, handlers, table),
        ),
        felt(table),
      ),
      h("aside", { class: "side", "aria-label": "Scores and awards" }, scores(table), awards(bookOf(events.slice(0, position)))),
    ),
  );
}

const pct = (p) => `${Math.round(100 * p)}%`;

function actionText(action) {
  return action.type === "play" ? `the ${cardName(action.card)}` : { stand: "stand", beg: "beg", give_one: "give one", run_pack: "run the pack" }[action.type] || action.type;
}

/** The decision just shown beside the strong bot's, with the chances to win after each
 * (like a chess site's analysis); a button asks for the analysis first. */
function analysisLine(model, handlers, table) {
  if (!model.gameId) return null; // a dropped file: the server has no game to analyse
  const analysis = model.analysis;
  if (!analysis) return h("p", { class: "analysis" }, h("button", { type: "button", class: "small", "data-key": "analyse", onclick: () => handlers.analyse() }, "Analyse the decisions"));
  if (analysis.loading) return h("p", { class: "analysis", "aria-busy": "true" }, "Analysing every decision…");
  const move = analysis.moves.get(model.position);
  if (!move) return h("p", { class: "analysis muted" }, "No choice to analyse at this step.");
  const who = seatLabel(table.names, move.seat, null);
  const same = move.best.type === move.played.type && (move.best.card ?? null) === (move.played.card ?? null);
  return h(
    "p",
    { class: `analysis${same ? " agrees" : ""}`, "data-version": move.version, "data-played": move.played_win_probability, "data-best": move.best_win_probability },
    `${who} chose ${actionText(move.played)} (${pct(move.played_win_probability)} to win). `,
    same ? "The strong bot agrees." : preference(move),
  );
}

/** The strong bot's other choice; "by a hair" where both round to the same chance ("prefers
 * the ace of hearts (58%)" after "58% to win" read as a preference for nothing). */
function preference(move) {
  const best = pct(move.best_win_probability);
  const hair = best === pct(move.played_win_probability);
  return `The strong bot prefers ${actionText(move.best)}${hair ? ", by a hair" : ""} (${hair ? "also " : ""}${best}).`;
}

function verification(check) {
  if (!check) {
    return h("section", { class: "panel verify", "aria-busy": "true" }, h("p", { class: "verdict" }, "Checking the deals against the seed…"));
  }
  const verdict = check.ok
    ? `✔ Verified: all ${check.deals.length} deals match the seed, which matches the commitment made before the first card.`
    : `✘ Not verified: ${check.problems[0]}`;
  return h(
    "section",
    { class: `panel verify ${check.ok ? "ok" : "bad"}`, "data-ok": String(check.ok), "aria-labelledby": "verify-title" },
    h("h2", { id: "verify-title", class: "sr-only" }, "Deal check"),
    h("p", { class: "verdict", role: "status" }, verdict),
    // The proof folds away once it holds (the table is what the page is for); a failed
    // check stays open, its evidence in view.
    h(
      "details",
      { class: "proof", open: !check.ok },
      h("summary", { title: "The seed, its commitment and each deal" }, "Show the proof"),
      check.seed ? h("p", {}, "Seed ", h("code", { "data-seed": check.seed }, check.seed)) : null,
      check.commitment ? h("p", {}, "Commitment (SHA-256 of the seed) ", h("code", {}, check.commitment)) : null,
      check.deals.length
        ? h(
            "ul",
            { class: "deal-checks", "aria-label": "Each deal" },
            check.deals.map((d) => h("li", { class: d.ok ? "" : "bad" }, `Hand ${d.hand}${d.deal > 1 ? `, deal ${d.deal}` : ""} ${d.ok ? "✔ matches" : "✘ differs"}`)),
          )
        : null,
      check.problems.length > 1 ? h("ul", {}, check.problems.slice(1, 6).map((p) => h("li", {}, p))) : null,
    ),
  );
}

function stepper(model, handlers) {
  const { position, events } = model;
  // The arrows and the word apart: a phone shows the arrows only, so the six keep to one row.
  const button = (label, [before, word, after], target, key) =>
    h(
      "button",
      { type: "button", class: "small", "aria-label": label, "data-key": key, "aria-keyshortcuts": key, disabled: target === position || target === null, onclick: () => handlers.go(target) },
      before,
      h("span", { class: "step-word" }, word),
      after,
    );
  const stops = model.stops;
  const prevHand = [...stops].reverse().find((s) => s < position) ?? null;
  const nextHand = stops.find((s) => s > position) ?? null;
  return h(
    "div",
    { class: "stepper", role: "toolbar", "aria-label": "Step through the game" },
    button("Start", ["|◀", " Start", ""], 0, "Home"),
    button("Back one hand", ["◀◀", " Hand", ""], prevHand, "PageUp"),
    button("Back one event", ["◀", " Back", ""], Math.max(0, position - 1), "ArrowLeft"),
    button("Forward one event", ["", "Next ", "▶"], Math.min(events.length, position + 1), "ArrowRight"),
    button("Forward one hand", ["", "Hand ", "▶▶"], nextHand, "PageDown"),
    button("End", ["", "End ", "▶|"], events.length, "End"),
    h("span", { class: "position" }, `Event ${position} of ${events.length}`),
  );
}

function felt(table) {
  const shown = table.trick.length ? table.trick : table.lastTrick?.cards || [];
  return h(
    "div",
    { class: "felt replay-felt", role: "group", "aria-label": "The table, every hand face-up" },
    [0, 1, 2, 3].map((seat) => openSeat(table, seat)),
    kicksCorner(table.kicks),
    handFacts(table.hand, table.trump),
    h(
      "div",
      { class: "centre" },
      h(
        "div",
        { class: "status" },
        table.trick.length || !table.lastTrick
          ? table.ended
            ? endText(table)
            : "Trick in play"
          : `Won by ${seatLabel(table.names, table.lastTrick.winner, null)}`,
      ),
      trickCross(shown, { bottom: 0, names: table.names, viewer: null }),
    ),
  );
}

function openSeat(table, seat) {
  return h(
    "div",
    { class: `seat seat-${POSITIONS[seat]}`, role: "group", "aria-label": `Seat ${seat + 1}: ${seatLabel(table.names, seat, null)}` },
    h("div", { class: "seat-name" }, seatLabel(table.names, seat, null)),
    h(
      "div",
      { class: "badges" },
      h("span", { class: `badge team-badge team-${seat % 2}` }, TEAM_NAMES[seat % 2]),
      table.dealer === seat ? h("span", { class: "badge dealer" }, "Dealer") : null,
      table.bots[seat] ? h("span", { class: "badge bot" }, "Bot") : null,
    ),
    h("div", { class: "open-hand" }, sortHand(table.hands[seat]).map((c) => cardFace(c))),
  );
}

function endText(table) {
  const e = table.ended;
  if (e.type === "GameAborted") return { expired: "The table expired", idle: "Closed: nobody played for a long while" }[e.reason] || "The table was aborted";
  return `${TEAM_NAMES[e.winner]} wins, ${scoreLine(e.scores, e.winner)}`;
}

function scores(table) {
  return h(
    "section",
    { class: "panel replay-scores" },
    h("h2", {}, "Score"),
    h(
      "ul",
      { class: "awards" },
      [0, 1].map((team) => h("li", {}, h("span", {}, TEAM_NAMES[team]), h("b", { "data-score": team }, String(table.scores[team])))),
    ),
    h("p", { class: "muted" }, `First to ${table.target}.`),
    table.ended ? h("p", { class: "result" }, endText(table)) : null,
  );
}

/** The hand in progress or last scored, every point of it in award order (kicks and giving
 * one too), and the score sheet so far. */
function awards(book) {
  const hand = book.hands[book.hands.length - 1];
  return h(
    "section",
    { class: "panel replay-awards" },
    h("h2", {}, hand ? `Hand ${hand.number}${hand.scored ? " scored" : " so far"}` : "Awards"),
    hand
      ? h(
          "ul",
          { class: "awards" },
          hand.points.length
            ? hand.points.map(pointItem)
            : h("li", {}, "No points yet"),
        )
      : h("p", { class: "muted" }, "No hand dealt yet."),
    h("h3", {}, "Score sheet"),
    scoreSheet(book),
  );
}
