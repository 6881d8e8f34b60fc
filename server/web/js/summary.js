// A hand explained: the summary laid over the felt when a hand is scored (every point in the
// order it was awarded, with its card and team, and the running score) and the score sheet of
// every hand, for the table and the replay. Rendering only: the content is the hand book's
// (handbook.js), folded from the events.

import { h } from "./dom.js";
import { handTotals, pointLabel } from "./handbook.js";
import { TEAM_NAMES } from "./narrate.js";

/** One point of a hand as a list item: "High (ace of spades)   Team A +1". */
export function pointItem(point) {
  return h(
    "li",
    { "data-kind": point.kind, "data-team": point.team },
    h("span", { class: "what" }, pointLabel(point)),
    h("span", { class: `who team-text-${point.team}` }, `${TEAM_NAMES[point.team]} +${point.points}`),
  );
}

function pointRows(hand) {
  if (!hand.points.length) return [h("li", { class: "none" }, "No points this hand")];
  return hand.points.map(pointItem);
}

function gameCounts(hand, target) {
  if (!hand.gameCounts) return null;
  const won = hand.points.some((p) => p.kind === "game");
  const reached = hand.scores && Math.max(...hand.scores) >= target; // awarding stops there
  return h(
    "p",
    { class: "counts" },
    won ? "Count for Game: " : `Count for Game (not awarded: ${reached ? "the target was reached first" : "a tie"}): `,
    `${TEAM_NAMES[0]} ${hand.gameCounts[0]}, ${TEAM_NAMES[1]} ${hand.gameCounts[1]}`,
  );
}

/** The summary of `hand` over the felt; `dismiss` closes it (a click, Enter or Escape). */
export function handSummary(hand, target, dismiss) {
  const scores = hand.scores || hand.before;
  return h(
    "div",
    {
      class: "hand-summary",
      role: "dialog",
      "aria-modal": "false",
      "aria-labelledby": "summary-title",
      "data-hand": hand.number,
      tabindex: "-1",
      "data-key": "hand-summary",
      onclick: dismiss,
      onkeydown: (event) => {
        if (event.key === "Enter" || event.key === "Escape" || event.key === " ") {
          event.preventDefault();
          dismiss();
        }
      },
    },
    h("h2", { id: "summary-title" }, `Hand ${hand.number}`),
    h("ol", { class: "summary-points" }, pointRows(hand)),
    gameCounts(hand, target),
    h(
      "p",
      { class: "summary-score" },
      [0, 1].map((team) => h("span", { class: `team-text-${team}`, "data-summary-score": team }, `${TEAM_NAMES[team]} ${scores[team]}`)),
      h("small", {}, ` of ${target}`),
    ),
    h("p", { class: "summary-hint" }, "Click or press Enter to go on"),
  );
}

/** Every hand's points and the running score, hand by hand, like a score pad. */
export function scoreSheet(book) {
  const rows = book.hands.filter((hand) => hand.points.length || hand.scored);
  if (!rows.length) return h("p", { class: "muted" }, "No points scored yet.");
  const cell = (text, cls = "") => h("td", { class: cls }, text);
  return h(
    "table",
    { class: "score-sheet" },
    h("caption", { class: "sr-only" }, "Score sheet, hand by hand"),
    h(
      "thead",
      {},
      h("tr", {}, h("th", { scope: "col" }, "Hand"), h("th", { scope: "col" }, "Points"), h("th", { scope: "col" }, TEAM_NAMES[0]), h("th", { scope: "col" }, TEAM_NAMES[1])),
    ),
    h(
      "tbody",
      {},
      rows.map((hand) => {
        const totals = handTotals(hand);
        const after = hand.scores || [hand.before[0] + totals[0], hand.before[1] + totals[1]];
        return h(
          "tr",
          { "data-hand": hand.number },
          h("th", { scope: "row" }, String(hand.number)),
          cell(hand.points.map((p) => `${pointLabel(p)} ${TEAM_NAMES[p.team].slice(-1)}`).join(", ") || "none", "points"),
          cell(`+${totals[0]} → ${after[0]}`, "num"),
          cell(`+${totals[1]} → ${after[1]}`, "num"),
        );
      }),
    ),
  );
}
