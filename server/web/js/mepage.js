// The person's own page: who they are (the name, changed here; the rating; the public
// profile), the recovery code (shown, copied, or another device's imported), and "My games".
// A game of another device is opened here with a fresh seat token (the old one stops).

import * as api from "./api.js";
import { announce, h, redrawer } from "./dom.js";
import { ensureIdentity, identity, importCode, looksLikeCode, rename } from "./identity.js";
import { copyText } from "./invite.js";
import { renderMyGames } from "./mygames.js";
import { sentence } from "./narrate.js";
import { keepName, keepSeat, seatOf } from "./seats.js";

export function mountMe(root, { navigate }) {
  let unmounted = false;
  let games = null;
  let cursor = null;
  let error = null;
  const settings = h("div", { class: "me-settings" });
  const listRoot = h("div", { class: "me-games" });
  const drawList = redrawer(listRoot, () => renderMyGames(games, { playerId: identity()?.player_id, error, more: Boolean(cursor) }, handlers, Date.now()));

  const handlers = {
    more: () => load(cursor),
    open: async (game, seat) => {
      const held = identity();
      const path = `/table/${encodeURIComponent(game.game_id)}`;
      if (seat === null || seatOf(game.game_id) || !held) return navigate(path);
      try {
        const grant = await api.reissueSeatToken(game.game_id, seat, held.key); // this device takes the seat up
        keepSeat(grant.game_id, grant.seat, grant.token);
        navigate(path);
      } catch (failure) {
        error = `This seat could not be taken up here: ${failure.detail}`;
        drawList();
      }
    },
  };

  async function load(from = null) {
    const held = await ensureIdentity();
    if (unmounted) return;
    if (!held) {
      games = [];
      error = "This server would not make a player identity now, so there are no games to list.";
      return drawList();
    }
    try {
      const page = await api.myGames(held.key, from);
      if (unmounted) return;
      games = from ? [...(games || []), ...page.games] : page.games;
      cursor = page.next_cursor;
      error = null;
    } catch (failure) {
      error = `Your games could not be loaded: ${failure.detail}`;
      games ??= [];
    }
    drawList();
  }

  async function drawSettings() {
    const held = await ensureIdentity();
    if (unmounted) return;
    let me = null;
    try {
      me = held ? await api.getMe(held.key) : null;
    } catch {
      me = null; // the rating line is left out; the rest is this browser's
    }
    if (unmounted) return;
    settings.replaceChildren(renderSettings(held, me, { onRename, onImport, onCopy }));
  }

  async function onRename(input, problem) {
    problem.textContent = "";
    const name = input.value.trim();
    try {
      const held = await rename(name);
      keepName(held.name);
      announce(`Your name is now ${held.name}.`);
      problem.textContent = `Saved: you are ${held.name}.`;
      problem.className = "note";
    } catch (failure) {
      problem.className = "error";
      problem.textContent = sentence(failure.detail || failure.message);
      input.focus();
    }
  }

  async function onImport(input, problem) {
    problem.textContent = "";
    const code = input.value.trim();
    if (!looksLikeCode(code)) {
      problem.textContent = "That is not a recovery code: it reads p….player.…, as the settings page of your other device shows it.";
      input.focus();
      return;
    }
    try {
      const held = await importCode(code);
      keepName(held.name);
      announce(`Signed in as ${held.name}.`);
      games = null;
      cursor = null;
      drawList();
      await Promise.all([drawSettings(), load()]);
      settings.querySelector("#me-name")?.focus();
    } catch (failure) {
      problem.textContent = failure.status === 401 ? "This server knows no player with that recovery code." : sentence(failure.detail);
      input.focus();
    }
  }

  async function onCopy(field, note) {
    if (await copyText(field.value)) {
      note.textContent = "Copied.";
    } else {
      field.type = "text";
      field.select();
      note.textContent = "Copy the selected code.";
    }
  }

  root.replaceChildren(h("div", { class: "me-page" }, settings, listRoot));
  drawList();
  drawSettings();
  load();
  return () => {
    unmounted = true;
  };
}

function renderSettings(held, me, { onRename, onImport, onCopy }) {
  const nameInput = h("input", { id: "me-name", name: "name", maxlength: 40, autocomplete: "nickname", value: held?.name || "", required: true });
  const nameProblem = h("p", { class: "error", id: "me-name-problem", role: "alert" });
  const code = h("input", { id: "recovery-code", type: "password", readonly: true, value: held?.key || "", class: "code", "aria-describedby": "recovery-hint", onfocus: (event) => event.target.select() });
  const copyNote = h("span", { class: "note", role: "status" });
  const importInput = h("input", { id: "import-code", name: "code", autocomplete: "off", spellcheck: "false", placeholder: "p0123456789abcdef.player.…" });
  const importProblem = h("p", { class: "error", id: "import-problem", role: "alert" });
  const submit = (work) => (event) => {
    event.preventDefault();
    work();
  };
  const show = (event) => {
    code.type = code.type === "password" ? "text" : "password";
    event.target.textContent = code.type === "password" ? "Show" : "Hide";
  };
  return h(
    "div",
    { class: "me-panels" },
    h(
      "section",
      { class: "panel", "aria-labelledby": "me-title" },
      h("h1", { id: "me-title" }, "You"),
      held
        ? h(
            "p",
            { class: "muted" },
            "Player id ",
            h("code", { id: "me-id" }, held.player_id),
            me ? ` · rating ${me.rating.rating} after ${me.rating.games} rated game${me.rating.games === 1 ? "" : "s"} · ` : " · ",
            h("a", { href: `/players/${held.player_id}`, "data-link": true }, "Your public profile"),
          )
        : h("p", { class: "error" }, "This server would not make a player identity now: you play anonymously."),
      h(
        "form",
        { class: "inline-form", onsubmit: submit(() => onRename(nameInput, nameProblem)) },
        h("label", { class: "field" }, h("span", { class: "field-label" }, "Your name"), nameInput),
        h("button", { type: "submit", class: "primary", id: "me-rename", disabled: !held }, "Change name"),
      ),
      nameProblem,
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "code-title" },
      h("h2", { id: "code-title" }, "Recovery code"),
      h("p", { class: "hint", id: "recovery-hint" }, "Your games and rating belong to this code. Keep it secret; enter it on another device to play as you there."),
      h(
        "div",
        { class: "inline-form" },
        h("label", { class: "field" }, h("span", { class: "field-label" }, "Your recovery code"), code),
        h("button", { type: "button", class: "small", id: "show-code", onclick: show, disabled: !held }, "Show"),
        h("button", { type: "button", class: "small", id: "copy-code", onclick: () => onCopy(code, copyNote), disabled: !held }, "Copy"),
        copyNote,
      ),
      h(
        "form",
        { class: "inline-form", onsubmit: submit(() => onImport(importInput, importProblem)) },
        h("label", { class: "field" }, h("span", { class: "field-label" }, "Use a code from another device"), importInput),
        h("button", { type: "submit", id: "import-submit" }, "Use this code"),
      ),
      importProblem,
    ),
  );
}
