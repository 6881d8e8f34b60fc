// The panels beside the table: the last trick and who won it, the points of the hand in
// progress and of the last scored hand (High, Low, Jack, Game, kicks, giving one), and the
// table's log. Rendering only, like table.js.

import { h } from "./dom.js";
import { cardName } from "./cards.js";
import { cardFace } from "./cardview.js";
import { awardRow } from "./felt.js";
import { TEAM_NAMES, namesOf, seatLabel } from "./narrate.js";

export function sidePanels(state, view) {
  const names = namesOf(view);
  return h(
    "aside",
    { class: "side", "aria-label": "Game details" },
    lastTrick(state, view, names),
    handPoints(state, view),
    h(
      "section",
      { class: "panel log" },
      h("h2", {}, "Table log"),
      h(
        "ol",
        { class: "log-lines" },
        state.log.slice(-8).map((line) => h("li", {}, line.text)),
      ),
    ),
  );
}

function lastTrick(state, view, names) {
  // A new hand's view has no last trick yet: the previous hand's final one stays in sight
  // (the next deal follows it at once), when this page saw it played.
  const previousHand = view.last_trick.length === 0 && state.finalTrick !== null;
  const cards = previousHand ? state.finalTrick : view.last_trick;
  return h(
    "section",
    { class: "panel last-trick" },
    h("h2", {}, previousHand ? "Last trick of the last hand" : "Last trick"),
    cards.length
      ? [
          h(
            "div",
            { class: "mini-trick" },
            cards.map((p) =>
              h("figure", {}, cardFace(p.card, "small"), h("figcaption", {}, seatLabel(names, p.seat, view.viewer))),
            ),
          ),
          state.lastTrickWinner !== null
            ? h("p", { class: "muted" }, `Won by ${seatLabel(names, state.lastTrickWinner, view.viewer)}`)
            : null,
        ]
      : h("p", { class: "muted" }, "No trick yet this hand."),
  );
}

/** The counts that decided Game, kept after the next deal clears the live count; and why Game
 * was not awarded when the target was reached first (awarding stops there). */
function gameNote(hand, target) {
  if (!hand.gameCounts) return null; // a hand scored before this page's first view
  const counts = `A ${hand.gameCounts[0]} · B ${hand.gameCounts[1]}`;
  const awarded = hand.awards.some((award) => award.kind === "game");
  const stopped = !awarded && Math.max(...hand.scores) >= target;
  return h("li", { class: "game-note" }, h("span", {}, stopped ? "Game not awarded: target reached" : "Count for Game"), h("span", {}, counts));
}

function handPoints(state, view) {
  const current = state.hand;
  const row = (what, team, points) => h("li", {}, h("span", {}, what), h("span", {}, `${TEAM_NAMES[team]} +${points}`));
  const early = (hand) => [
    ...hand.kicks.filter((k) => k.points).map((k) => row(`Kick (${cardName(k.card)})`, k.team, k.points)),
    ...hand.gaveOne.map((g) => row("Gave one", g.team, g.points)),
  ];
  const last = state.lastHand;
  return h(
    "section",
    { class: "panel points" },
    h("h2", {}, "This hand"),
    h(
      "ul",
      { class: "awards" },
      h("li", {}, h("span", {}, "Count toward Game"), h("span", {}, `A ${view.game_counts[0]} · B ${view.game_counts[1]}`)),
      current ? early(current) : null,
    ),
    last
      ? [
          h("h3", {}, `Hand ${last.number ?? ""} scored`),
          h(
            "ul",
            { class: "awards" },
            early(last),
            last.awards.map(awardRow),
            last.awards.length ? null : h("li", {}, "No points awarded"),
            gameNote(last, view.rules.target),
          ),
        ]
      : null,
  );
}
