// How a card looks: a face with its rank and suit in the corners and a large suit in the
// middle, named in text for screen readers. Shared by the table and the replay viewer.

import { h } from "./dom.js";
import { cardName, rankLabel, suitOf } from "./cards.js";

// A 6 and a 9 read as each other upside down (the far corner is turned, and a turned-up 6
// scores where a 9 does not): underlined, as many printed decks have them.
const TURNABLE = new Set(["6", "9"]);

function rank(code) {
  const label = rankLabel(code);
  return h("b", { class: TURNABLE.has(label) ? "turnable" : null }, label);
}

function face(code) {
  const suit = suitOf(code);
  return [
    h("span", { class: "corner", "aria-hidden": "true" }, rank(code), suit.symbol),
    h("span", { class: "pip", "aria-hidden": "true" }, suit.symbol),
    h("span", { class: "corner corner-end", "aria-hidden": "true" }, rank(code), suit.symbol),
  ];
}

function classes(code, extra) {
  return `card ${suitOf(code).red ? "red" : "black"}${extra ? ` ${extra}` : ""}`;
}

/** A card face that is only shown. */
export function cardFace(code, extra = "") {
  return h("span", { class: classes(code, extra), role: "img", "aria-label": cardName(code), "data-card": code }, face(code));
}

/** A card face that is a button (a card in the hand). `inert`: shown as not playable now
 * (aria-disabled, so it keeps the keyboard focus and is read with the hand). */
export function cardButton(code, { onclick, inert = false, label, key, extra = "", number }) {
  return h(
    "button",
    {
      type: "button",
      class: classes(code, extra),
      "data-card": code,
      "data-key": key,
      "aria-label": label || cardName(code),
      "aria-disabled": inert ? "true" : null,
      "aria-keyshortcuts": number ? String(number) : null,
      onclick,
    },
    face(code),
    number ? h("span", { class: "keycap", "aria-hidden": "true" }, String(number)) : null,
  );
}

/** The back of a card (decorative: the count is said in text next to it). */
export function cardBack(extra = "") {
  return h("span", { class: `card back${extra ? ` ${extra}` : ""}`, "aria-hidden": "true" });
}
