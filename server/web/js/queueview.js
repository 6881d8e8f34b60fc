// The "Play people" panel's markup and words: the form (drawn once, so typing is never lost),
// the line that says how the wait goes, and the live counts. It never fetches.

import { h } from "./dom.js";

/** "0:07", "2:30", "1:02:03": how long the person has waited. */
export function waitText(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return hours ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/** The ratings the queue looks in now: a `[low, high]` pair, a ± width, or as it comes. */
export function bandText(band) {
  if (Array.isArray(band) && band.length === 2) return `ratings ${band[0]}\u2013${band[1]}`;
  if (typeof band === "number") return `ratings within ±${band} of yours`;
  if (band && typeof band === "object" && "low" in band && "high" in band) return `ratings ${band.low}\u2013${band.high}`;
  return band ? `ratings ${band}` : "any rating";
}

/** "3 people waiting · 8 playing" */
export function countsText(stats) {
  if (!stats) return "";
  const people = (n) => `${n} ${n === 1 ? "person" : "people"}`;
  return `${people(stats.waiting)} waiting · ${stats.playing} playing`;
}

function field(label, control, hint) {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), control, hint ? h("span", { class: "hint" }, hint) : null);
}

/** The panel; `onJoin(form)` and `onCancel()` are the queue's. Its parts are found by id. */
export function renderQueue({ onJoin, onCancel }) {
  const join = (event) => {
    event.preventDefault();
    onJoin(new FormData(event.target));
  };
  return h(
    "section",
    { class: "panel queue", "aria-labelledby": "queue-title", id: "play-people" },
    h("h2", { id: "queue-title" }, "Play people"),
    h("p", { class: "muted counts", id: "queue-counts" }, ""),
    h(
      "form",
      { id: "queue-form", onsubmit: join },
      h("p", { class: "hint" }, "A rated table with three other people near your rating."),
      field("Partner’s player id (optional)", h("input", { name: "partner", id: "queue-partner", autocomplete: "off", spellcheck: "false", placeholder: "p0123456789abcdef", pattern: "p[0-9a-f]{16}" }), "You two sit opposite, as a team."),
      h(
        "div",
        { class: "bots-after" },
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "bots", id: "queue-bots" }), " Fill with bots after"),
        h("input", { type: "number", name: "bots_after_s", id: "queue-bots-after", min: 10, max: 600, value: 60, inputmode: "numeric", "aria-label": "seconds before bots fill the table" }),
        h("span", {}, " s"),
      ),
      h("button", { type: "submit", class: "primary", id: "queue-join" }, "Play people"),
    ),
    h(
      "div",
      { class: "queue-wait", id: "queue-wait", hidden: true },
      h("p", {}, "Looking for people… ", h("b", { id: "queue-waited", role: "timer" }, "0:00")),
      h("p", { class: "muted", id: "queue-band" }, ""),
      h("button", { type: "button", id: "queue-cancel", onclick: () => onCancel() }, "Cancel"),
    ),
    h("p", { class: "queue-status", id: "queue-status", role: "status", "aria-live": "polite" }, ""),
  );
}
