// The page for what is not there: an unknown path, a table this server does not have.

import { h } from "./dom.js";

/** "Nothing here" with what was asked for, in words, and the way back to the lobby. */
export function notFoundPage(title, ...said) {
  return h(
    "section",
    { class: "panel not-found", "aria-labelledby": "nf-title" },
    h("h1", { id: "nf-title" }, title),
    h("p", {}, ...said),
    h("p", {}, h("a", { class: "button primary", href: "/", "data-link": true }, "Go to the lobby"), " ", h("a", { class: "button", href: "/replay", "data-link": true }, "Replays")),
  );
}
