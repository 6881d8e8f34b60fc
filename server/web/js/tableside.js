// The panels beside the table: the last trick and who won it, the points of the hand in
// progress and of the last scored hand (High, Low, Jack, Game, kicks, giving one), and the
// table's log. Rendering only, like table.js.

import { h } from "./dom.js";
import { cardFace } from "./cardview.js";
import { pointItem } from "./summary.js";
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
      h("h2", { id: "log-title" }, "Table log"),
      // The whole story, scrolled to its end (the page keeps it there unless the person
      // scrolled back to read); tabindex: a keyboard can scroll it too.
      h(
        "ol",
        { class: "log-lines", tabindex: "0", "aria-labelledby": "log-title", "data-scroll-key": "log" },
        state.log.map((line) => h("li", { "data-version": line.version }, line.text)),
      ),
    ),
    h(
      "p",
      { class: "keys-help" },
      "Keyboard: ",
      h("kbd", {}, "1"),
      "–",
      h("kbd", {}, "9"),
      " choose an action, ",
      h("kbd", {}, "←"),
      " ",
      h("kbd", {}, "→"),
      " move between cards, ",
      h("kbd", {}, "Enter"),
      " plays.",
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

/** The count toward Game and the points of the hand in progress (kicks, giving one), then the
 * last scored hand's in award order. Each headed by its hand's number: under "This hand",
 * hand 3's count beside "Hand 2 scored" read as one hand's (an outside trial). */
function handPoints(state, view) {
  const hands = state.book.hands;
  const current = hands.length && !hands[hands.length - 1].scored ? hands[hands.length - 1] : null;
  const last = [...hands].reverse().find((hand) => hand.scored);
  // Between a hand's scoring and the next deal, the count is still the scored hand's.
  const counted = current ?? last;
  return h(
    "section",
    { class: "panel points" },
    h("h2", {}, counted ? `Hand ${counted.number}${current && view.phase !== "ended" ? " so far" : ""}` : "This hand"),
    h(
      "ul",
      { class: "awards" },
      h("li", {}, h("span", {}, "Count toward Game"), h("span", {}, `A ${view.game_counts[0]} · B ${view.game_counts[1]}`)),
      current ? current.points.map(pointItem) : null,
    ),
    last
      ? [
          h("h3", {}, `Hand ${last.number} scored`),
          h("ul", { class: "awards" }, last.points.length ? last.points.map(pointItem) : h("li", {}, "No points awarded")),
        ]
      : null,
  );
}
