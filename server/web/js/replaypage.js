// The replay page: loads a finished game's log (from the server by id, or from a dropped
// replay file), checks its deals with WebCrypto, and steps through it by event or by hand with
// the buttons or the keyboard (← →, Page Up/Down, Home, End).

import * as api from "./api.js";
import { redrawer } from "./dom.js";
import { verifyDeals } from "./fairness.js";
import { renderPicker, renderReplay } from "./replay.js";
import { handStops } from "./replaystate.js";

export function mountReplay(root, gameId, { navigate }) {
  let model = { gameId, fileName: null, events: null, stops: [], position: 0, verification: null, error: null, finished: null };
  let unmounted = false;

  const handlers = {
    go: (position) => {
      model = { ...model, position: Math.max(0, Math.min(model.events.length, position)) };
      draw();
      // After the redraw (the redrawer's frame comes first): a deal makes the table taller.
      requestAnimationFrame(() => revealTable(root));
    },
    openId: (id) => navigate(`/replay/${encodeURIComponent(id)}`),
    analyse: async () => {
      model = { ...model, analysis: { loading: true, moves: new Map() } };
      draw();
      try {
        const answer = await api.getAnalysis(model.gameId);
        if (unmounted) return;
        model = { ...model, analysis: { loading: false, moves: new Map(answer.moves.map((m) => [m.version, m])) } };
      } catch (error) {
        model = { ...model, analysis: null, error: error.detail };
      }
      draw();
    },
    openFile: async (file) => {
      try {
        load(JSON.parse(await file.text()), null, file.name);
      } catch (error) {
        model = { ...model, error: `Not a replay file: ${error.message}` };
        draw();
      }
    },
  };
  const draw = redrawer(root, () => (model.events ? renderReplay(model, handlers) : renderPicker(model, handlers)));

  /** Shows a replay (the server's answer or a file's content) and starts checking it. */
  function load(replay, id, fileName) {
    if (replay?.format !== "allfours-replay" || !Array.isArray(replay.events)) {
      throw new Error("its format is not allfours-replay");
    }
    const events = replay.events.map((envelope) => envelope.event);
    model = { gameId: id ?? replay.game_id ?? null, fileName, events, stops: handStops(events), position: 0, verification: null, error: null };
    draw();
    verifyDeals(events).then((verification) => {
      if (unmounted || model.events !== events) return;
      model = { ...model, verification };
      draw();
    });
  }

  function onKey(event) {
    if (!model.events || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    const { position, stops, events } = model;
    const targets = {
      ArrowRight: position + 1,
      ArrowLeft: position - 1,
      PageDown: stops.find((s) => s > position) ?? events.length,
      PageUp: [...stops].reverse().find((s) => s < position) ?? 0,
      Home: 0,
      End: events.length,
    };
    if (event.key in targets) {
      event.preventDefault();
      handlers.go(targets[event.key]);
    }
  }

  document.addEventListener("keydown", onKey);
  draw();
  if (!gameId) {
    api.listGames("finished", 12).then(
      (page) => {
        if (unmounted) return;
        model = { ...model, finished: page.games };
        draw();
      },
      () => {}, // the picker works without the list
    );
  } else {
    api.getReplay(gameId).then(
      (replay) => !unmounted && load(replay, gameId, null),
      (error) => {
        if (unmounted) return;
        model = { ...model, error: error.code === "game_not_finished" ? "This game is not finished yet: watch it at its table." : error.detail };
        draw();
      },
    );
  }
  return () => {
    unmounted = true;
    document.removeEventListener("keydown", onKey);
  };
}

/** On a phone the steps keep to the foot of the screen, over the table's lower part until the
 * page is scrolled (the trick in play was hidden behind them: an outside trial): a step
 * scrolls the table into view above them, its top kept on the screen. */
function revealTable(root) {
  const steps = root.querySelector(".replay-steps");
  const felt = root.querySelector(".replay-felt");
  if (!steps || !felt || getComputedStyle(steps).position !== "sticky") return;
  const table = felt.getBoundingClientRect();
  const hidden = Math.min(table.bottom - steps.getBoundingClientRect().top, table.top);
  if (hidden > 0) window.scrollBy({ top: hidden, behavior: "instant" });
}
