// Pieces of the green table shared by the live table and the replay viewer: the four places
// around it, the trick in the middle, the kick and the hand's facts in the corners.

import { h } from "./dom.js";
import { cardName, suitName, suitOf } from "./cards.js";
import { cardFace } from "./cardview.js";
import { seatLabel } from "./narrate.js";

/** Where the seats sit, from the one at the bottom (the viewer's) counterclockwise. */
export const POSITIONS = ["bottom", "right", "top", "left"];

/** The style that plays a step's animation from where it is now: a redraw in the middle of
 * a step (a countdown, a refusal) rebuilds the element, and a negative delay resumes it. */
export function motionStyle(motion, now, durationMs = motion.ms, delayMs = 0) {
  return { animationDuration: `${durationMs}ms`, animationDelay: `${delayMs - (now - motion.at)}ms` };
}

/** True while `motion` (a step on show, see pace.js) is still moving at `now`. */
export function moving(motion, now, type) {
  return Boolean(motion && motion.ms > 0 && motion.type === type && now < motion.at + motion.ms);
}

/** The trick as a cross: each card in front of the seat that played it. `motion`: the step
 * on show, to animate the card just played (from its seat) or the won trick (to its winner). */
export function trickCross(played, { bottom, names, viewer, motion = null, now = 0 }) {
  const arriving = moving(motion, now, "CardPlayed") ? motion.seat : null;
  const sweeping = moving(motion, now, "TrickWon");
  const slots = [0, 1, 2, 3].map((k) => {
    const seat = (bottom + k) % 4;
    const card = played.find((p) => p.seat === seat);
    let face = card ? cardFace(card.card, "played") : h("span", { class: "card empty", "aria-hidden": "true" });
    if (card && seat === arriving) {
      face.classList.add("arrive");
      Object.assign(face.style, motionStyle(motion, now, Math.min(motion.ms, 420)));
    }
    return h("div", { class: `slot slot-${POSITIONS[k]}` }, face);
  });
  const said = played.map((p) => `${seatLabel(names, p.seat, viewer)}: ${cardName(p.card)}`).join("; ");
  const cross = h("div", { class: "trick", role: "group", "aria-label": played.length ? `Trick: ${said}` : "Trick: no card played yet" }, slots);
  if (sweeping) {
    cross.classList.add("sweep", `sweep-${POSITIONS[(motion.seat - bottom + 4) % 4]}`);
    Object.assign(cross.style, motionStyle(motion, now));
  }
  return cross;
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
    h(
      "dd",
      { class: trump ? `trump ${trump.red ? "red" : "black"}` : "trump" },
      trump
        ? [trump.symbol, h("span", { class: "trump-name" }, ` ${suitName(trumpLetter)}`)]
        : // A phone shows a dash in the space a suit takes: the words pushed the box over the top seat.
          [h("span", { class: "unset-word" }, "not yet"), h("span", { class: "unset-mark", "aria-hidden": "true" }, "–")],
    ),
    clockSeconds ? [h("dt", {}, "Clock"), h("dd", {}, `${clockSeconds} s`)] : null,
  );
}
