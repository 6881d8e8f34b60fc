// The lobby page: lists tables (refreshed every few seconds while shown), opens new ones
// (public or private), takes seats as the person's player and keeps their tokens, then sends
// the person to the table. The "Play people" queue is its own panel (queue.js).

import * as api from "./api.js";
import { h, redrawer } from "./dom.js";
import { adoptName, withKey } from "./identity.js";
import { BOT_LEVELS, renderLists, renderStart } from "./lobby.js";
import { sentence } from "./narrate.js";
import { mountQueue } from "./queue.js";
import { inviteOf, keepCreator, keepInvite, keepName, keepSeat, playerName, seatOf } from "./seats.js";

const REFRESH_MS = 4000;
const STATUSES = ["open", "in_progress", "finished"];

export function mountLobby(root, { navigate }) {
  let lists = { open: null, in_progress: null, finished: null, error: null };
  let unmounted = false;
  const listsRoot = h("div", { class: "lists-root" });
  const problem = h("p", { class: "error", role: "alert", id: "lobby-problem" });
  const held = (id) => seatOf(id) !== null;
  const drawLists = redrawer(listsRoot, () => renderLists(lists, held, handlers, Date.now()));

  const name = () => {
    const input = root.querySelector("#player-name");
    const value = (input?.value || playerName()).trim();
    if (!value) {
      problem.textContent = "Tell the table your name first.";
      input?.focus();
      return null;
    }
    keepName(value);
    return value;
  };

  /** The name, checked by the server before any table is opened for it. */
  async function checkedName() {
    const who = name();
    if (who) await api.checkName(who);
    return who;
  }

  async function sit(gameId, seat, who) {
    await adoptName(who);
    const invite = inviteOf(gameId);
    const grant = await withKey((key) => api.takeSeat(gameId, seat, who, key, invite));
    keepSeat(gameId, grant.seat, grant.token);
    navigate(`/table/${encodeURIComponent(gameId)}`);
  }

  async function guarded(work) {
    problem.textContent = "";
    try {
      await work();
    } catch (error) {
      problem.textContent = sentence(error.detail);
      problem.scrollIntoView({ block: "nearest" }); // where the person is looking, even on a phone
    }
  }

  const handlers = {
    rename: (value) => keepName(value.trim()),
    quickPlay: () =>
      guarded(async () => {
        const who = await checkedName();
        if (!who) return;
        // A minute a turn: a newcomer has time to read the table.
        const created = await api.createGame({ rules: { turn_seconds: 60 }, bots: [null, "strong", "strong", "strong"] });
        keepCreator(created.game_id, created.creator_token);
        await sit(created.game_id, 0, who);
      }),
    create: (form) =>
      guarded(async () => {
        const choices = [0, 1, 2, 3].map((seat) => form.get(`seat${seat}`));
        const mine = choices.indexOf("you");
        const who = mine >= 0 ? await checkedName() : "";
        if (mine >= 0 && !who) return;
        const bots = choices.map((c) => (BOT_LEVELS.has(c) ? c : null));
        const created = await api.createGame({ rules: rulesOf(form), bots, isPrivate: form.get("private") === "on" });
        keepCreator(created.game_id, created.creator_token);
        keepInvite(created.game_id, created.invite); // the table page shows its link to copy
        if (mine >= 0) await sit(created.game_id, mine, who);
        else navigate(`/table/${encodeURIComponent(created.game_id)}`);
      }),
    takeSeat: (gameId, seat) =>
      guarded(async () => {
        const who = name();
        if (who) await sit(gameId, seat, who);
      }),
  };

  async function refresh() {
    try {
      const pages = await Promise.all(STATUSES.map((status) => api.listGames(status)));
      if (unmounted) return;
      const next = { error: null };
      STATUSES.forEach((status, i) => {
        next[status] = pages[i].games;
      });
      if (JSON.stringify(next) === JSON.stringify(lists)) return; // nothing new: no redraw
      lists = next;
    } catch (error) {
      lists = { ...lists, error: `The lobby could not be loaded: ${error.detail}` };
    }
    drawLists();
  }

  const queueRoot = h("div", { class: "queue-root" });
  root.replaceChildren(renderStart(playerName(), handlers, problem), queueRoot, listsRoot);
  const stopQueue = mountQueue(queueRoot, { navigate });
  drawLists();
  refresh();
  const timer = setInterval(() => document.visibilityState === "visible" && refresh(), REFRESH_MS);
  return () => {
    unmounted = true;
    clearInterval(timer);
    stopQueue();
  };
}

/** The rules of the new-table form; a clock is sent only when the person picked one, so a
 * server without turn clocks still accepts the default table. */
function rulesOf(form) {
  const rules = {
    target: Number(form.get("target")) || 14,
    tobago_kick: form.get("tobago_kick") === "on",
    give_one_at_13: form.get("give_one_at_13"),
    undertrump: form.get("undertrump"),
  };
  const clock = form.get("turn_seconds");
  if (clock === "none") rules.turn_seconds = null;
  else if (clock) rules.turn_seconds = Number(clock);
  return rules;
}
