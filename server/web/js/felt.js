// Pieces of the green table shared by the live table and the replay viewer: the four places
// around it, the trick in the middle, the kick and the hand's facts in the corners.

import { h } from "./dom.js";
import { cardName, suitName, suitOf } from "./cards.js";
import { cardFace } from "./cardview.js";
import { TEAM_NAMES, awardName, seatLabel } from "./narrate.js";

/** Where the seats sit, from the one at the bottom (the viewer's) counterclockwise. */
export const POSITIONS = ["bottom", "right", "top", "left"];

/** The trick as a cross: each card in front of the seat that played it. */
export function trickCross(played, { bottom, names, viewer }) {
  const slots = [0, 1, 2, 3].map((k) => {
    const card = played.find((p) => p.seat === (bottom + k) % 4);
    return h(
      "div",
      { class: `slot slot-${POSITIONS[k]}` },
      card ? cardFace(card.card, "played") : h("span", { class: "card empty", "aria-hidden": "true" }),
    );
  });
  const said = played.map((p) => `${seatLabel(names, p.seat, viewer)}: ${cardName(p.card)}`).join("; ");
  return h("div", { class: "trick", role: "group", "aria-label": played.length ? `Trick: ${said}` : "Trick: no card played yet" }, slots);
}

export function kicksCorner(kicks) {
  return h(
    "div",
    { class: "kicks", role: "group", "aria-label": kicks.length > 1 ? "Kicks" : "Kick" },
    h("span", { class: "label" }, kicks.length > 1 ? "Kicks" : "Kick"),
    h("span", { class: "kick-cards" }, kicks.length ? kicks.map((code) => cardFace(code, "small")) : h("span", { class: "card small empty", "aria-hidden": "true" })),
  );
}

export function handFacts(handNumber, trumpLetter, clockSeconds = null) {
  const trump = trumpLetter ? suitOf(`2${trumpLetter}`) : null;
  return h(
    "dl",
    { class: "hand-facts" },
    h("dt", { class: "hand-no" }, "Hand"),
    h("dd", { class: "hand-no" }, String(handNumber || "–")),
    h("dt", {}, "Trump"),
    h("dd", { class: trump ? `trump ${trump.red ? "red" : "black"}` : "trump" }, trump ? [trump.symbol, h("span", { class: "trump-name" }, ` ${suitName(trumpLetter)}`)] : "not yet"),
    clockSeconds ? [h("dt", {}, "Clock"), h("dd", {}, `${clockSeconds} s`)] : null,
  );
}

/** One award of a scored hand: "High (ace of spades) — Team A +1". */
export function awardRow(award) {
  return h(
    "li",
    {},
    h("span", {}, awardName(award.kind), award.card ? ` (${cardName(award.card)})` : ""),
    h("span", {}, `${TEAM_NAMES[award.team]} +${award.points}`),
  );
}
