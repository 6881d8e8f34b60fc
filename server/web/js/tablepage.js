// A table page: wires the API (view, stream, commands) to the state fold and the table view.
// It holds the only mutable state of the page, shows the stream's steps at a person's pace
// (pace.js), redraws through one animation-frame redrawer, keeps the seat's token in the
// browser, and offers full keyboard play.

import * as api from "./api.js";
import { announce, h, redrawer } from "./dom.js";
import { confirmAction, openDialog } from "./dialog.js";
import { adoptName, withKey } from "./identity.js";
import { copyText, inviteLink } from "./invite.js";
import { notFoundPage } from "./notfound.js";
import { SPEEDS, STEP_MS, createPacer } from "./pace.js";
import { apply, freshLines, initial, isBusy } from "./state.js";
import { scoreSheet } from "./summary.js";
import { clockText, orderedActions, renderTable } from "./table.js";
import { chosenSpeed, creatorOf, forgetSeat, inviteOf, keepInvite, keepSeat, keepSpeed, playerName, seatOf } from "./seats.js";

const SNAPSHOT_WAIT_MS = 150;
const SEAT_LOST = "Your seat is played from another device now (its token was replaced there), or someone took it over: this tab only watches.";

/** A hand's summary stays this long at the normal pace unless dismissed: as long as the pace
 * holds the game for it after a scored hand, so it closes as the next deal comes (a second
 * longer, it covered a bid that came first: an outside trial). A faster or slower pace takes
 * it in proportion (at the fast pace 6 s hid the next hand's first trick); where steps are
 * instant, as long as at the normal pace, to be read, unless the person is to act. */
const SUMMARY_MS = STEP_MS.HandScored;
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");

const CONNECTION_TEXT = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
};

/** Mounts the table of `gameId` into `root`; returns the function that unmounts it. */
export function mountTable(root, gameId, { navigate, askName }) {
  // Opened from an invitation (`?invite=`): it is kept, and sent when a seat is taken here.
  keepInvite(gameId, new URLSearchParams(location.search).get("invite"));
  let held = seatOf(gameId);
  let state = initial(gameId, held ? held.seat : null);
  let stopStream = null;
  let loading = false;
  let reloadAgain = false;
  let checkingSeat = false; // a view asked for while the stream reconnects (checkSeat)
  let reloadTimer = null;
  let summaryTimer = null;
  let streamEvent = null; // an event of the stream waiting for the view that follows it
  let speed = chosenSpeed() in SPEEDS ? chosenSpeed() : "normal";
  let unmounted = false;

  const handlers = {
    now: () => Date.now(),
    act,
    lifecycle,
    takeSeat,
    addBot,
    mayAddBots: () => botToken() !== null,
    rematch,
    showSheet: () => openDialog({ title: "Score sheet", body: scoreSheet(state.book), buttons: [{ label: "Close" }] }),
    speed: () => speed,
    setSpeed: (chosen) => {
      speed = chosen in SPEEDS ? chosen : "normal";
      keepSpeed(speed);
      if (speed === "instant") pacer.flush();
    },
    dismissSummary,
    askHints,
    inviteLink: () => (inviteOf(gameId) ? inviteLink(location.origin, gameId, inviteOf(gameId)) : null),
    copyInvite,
  };
  let missing = false;
  const draw = redrawer(root, () => (missing ? noSuchTable(gameId) : renderTable(state, handlers)));

  const pacer = createPacer({
    show: showStep,
    idle: () => {
      if (unmounted) return;
      dispatch({ kind: "motion", motion: null });
      dispatch({ kind: "pacing", busy: false });
    },
    factor: paceFactor,
    clockLeft: (view) => (view.viewer !== null && view.to_act === view.viewer && view.deadline ? view.deadline - Date.now() : null),
    timers: { set: (fn, ms) => setTimeout(fn, ms), clear: (id) => clearTimeout(id) },
  });

  /** One step of the stream on show: its event (the story), the view after it, and the
   * motion the table animates for `ms`; a scored hand opens its summary. */
  function showStep(step, ms) {
    if (unmounted) return;
    dispatch({ kind: "pacing", busy: ms > 0 || pacer.busy });
    if (step.event) dispatch({ kind: "event", version: step.version, event: step.event });
    if (step.view) dispatch({ kind: "view", view: step.view });
    const event = step.event;
    dispatch({ kind: "motion", motion: event ? { type: event.type, seat: event.seat ?? null, at: Date.now(), ms } : null });
    const last = state.book.hands[state.book.hands.length - 1];
    if (event?.type === "HandScored" && last) openSummary(last.number);
    if (event?.type === "GameEnded" && last && !last.scored) {
      // Ended inside a hand: a kick's points that won it are its story; else (a resignation)
      // the last hand's summary, still up, would tell a finished story as the ending.
      if (last.points.length) openSummary(last.number);
      else closeSummary();
    }
    // Paced, the summary closes as the next hand is dealt: the pace holds the game for it, but
    // less when steps are waiting (it stayed over a bid that came first: an outside trial).
    if (state.summary !== null && paceFactor() > 0 && event?.type === "Dealt") closeSummary();
    // At once (the instant pace, reduced motion, a hidden tab) nothing waits for the summary:
    // it gives way when the person is to act in a later hand, whose trick it covered (an
    // outside trial). That hand's points stay in the side panel and the score sheet.
    if (state.summary !== null && paceFactor() === 0 && isMyTurn() && last && last.number !== state.summary) closeSummary();
  }

  function openSummary(number) {
    clearTimeout(summaryTimer);
    dispatch({ kind: "summary", hand: number });
    summaryTimer = setTimeout(() => !unmounted && dispatch({ kind: "summary", hand: null }), SUMMARY_MS * (paceFactor() || 1));
  }

  /** The pace's factor now: 0 (every step at once) with reduced motion or a hidden tab. */
  function paceFactor() {
    return REDUCED_MOTION.matches || document.hidden ? 0 : SPEEDS[speed];
  }

  function closeSummary() {
    clearTimeout(summaryTimer);
    if (state.summary !== null) dispatch({ kind: "summary", hand: null });
  }

  function dismissSummary() {
    closeSummary();
    pacer.hurry();
  }

  function dispatch(message) {
    const before = state;
    state = apply(state, message);
    for (const line of freshLines(before, state)) announce(line);
    if (before.view?.to_act !== state.view?.to_act && isMyTurn()) announce(yourTurnText());
    showConnection(state.connection);
    document.title = isMyTurn() ? "▶ Your turn · All Fours" : "All Fours: table"; // seen from other tabs
    if (state.stale) reloadSoon();
    draw();
  }

  /** A stale view is fetched a moment later, unless the stream's own view snapshot (sent
   * after each batch of events) has brought it up to date by then. */
  function reloadSoon() {
    if (reloadTimer) return;
    reloadTimer = setTimeout(() => {
      reloadTimer = null;
      if (!unmounted && state.stale) reloadView();
    }, SNAPSHOT_WAIT_MS);
  }

  function isMyTurn() {
    const view = state.view;
    return Boolean(view && view.viewer !== null && view.to_act === view.viewer && view.phase !== "ended");
  }

  function yourTurnText() {
    const n = state.view.legal_actions.length;
    return `Your turn: ${n} possible action${n === 1 ? "" : "s"}.`;
  }

  /** GETs the view (one request at a time; again if more events came meanwhile). */
  async function reloadView() {
    if (loading) {
      reloadAgain = true;
      return;
    }
    loading = true;
    try {
      do {
        reloadAgain = false;
        const token = held?.token;
        const view = await api.getView(gameId, token);
        if (unmounted) return;
        if (token !== held?.token) {
          reloadAgain = true; // a seat was taken meanwhile: this view is someone else's
          continue;
        }
        if (held && view.viewer === null) {
          // This person left the seat (or it was taken over): the token shows what anyone sees.
          forgetSeat(gameId);
          held = null;
          state = { ...state, seat: null };
        }
        if (state.view) pacer.push({ version: view.version, event: null, view });
        else dispatch({ kind: "view", view });
      } while (reloadAgain && !unmounted);
    } catch (error) {
      if (held && (error.status === 401 || error.status === 403)) {
        // The token was replaced (the seat moved to another device, or was taken over), or
        // is of an older server: watch instead, and say why.
        seatLost();
        loading = false;
        return await reloadView();
      }
      if (error.status === 404) {
        missing = true; // no such table: nothing to follow or to ask for again
        stopStream?.();
        stopStream = null;
        draw();
        return;
      }
      dispatch({ kind: "error", error: error.detail });
    } finally {
      loading = false;
    }
  }

  /** This tab's token no longer holds its seat: it watches from here on, and says why
   * (an action refused as "unknown seat token" told nobody what had happened). */
  function seatLost() {
    forgetSeat(gameId);
    held = null;
    state = { ...state, seat: null };
    if (stopStream) restartStream(state.streamVersion); // go on watching from there
    dispatch({ kind: "error", error: SEAT_LOST });
  }

  function restartStream(after) {
    stopStream?.();
    streamEvent = null;
    stopStream = api.follow(gameId, {
      token: held?.token,
      after,
      onMessage: (message) => {
        if (unmounted) return;
        if (message.kind === "event") {
          // Without its view (an older server): shown alone, and the view reloaded.
          if (streamEvent) pacer.push({ version: streamEvent.version, event: streamEvent.event, view: null });
          streamEvent = message;
          return;
        }
        if (message.kind === "view") {
          const event = streamEvent;
          streamEvent = null;
          if (held && message.view.viewer !== held.seat) {
            if (event) pacer.push({ version: event.version, event: event.event, view: null });
            reloadView(); // a snapshot for someone else than this seat: ask for ours
            return;
          }
          pacer.push({ version: message.view.version, event: event?.event ?? null, view: message.view });
          return;
        }
        if (message.kind === "resync") {
          streamEvent = null;
          pacer.reset();
        }
        dispatch(message);
      },
      onStatus: (status) => {
        if (unmounted) return;
        dispatch({ kind: "connection", status });
        if (status === "reconnecting") checkSeat();
      },
    });
  }

  /** A stream refused with 401 only says "error" (EventSource hides the status): while it
   * reconnects, a seat's page asks for its view, whose 401 tells that the seat's token was
   * replaced or the seat taken over (the page said "Reconnecting…" for ever, with the old
   * hand). Other failures are the stream's to retry. */
  async function checkSeat() {
    const token = held?.token;
    if (!token || checkingSeat) return;
    checkingSeat = true;
    try {
      await api.getView(gameId, token);
    } catch (error) {
      if (!unmounted && token === held?.token && (error.status === 401 || error.status === 403)) {
        seatLost();
        reloadView();
      }
    } finally {
      checkingSeat = false;
    }
  }

  /** The view, then the story so far (quietly: the points of the hand, the log), then the
   * stream from where the story ends. */
  async function start() {
    await reloadView();
    if (unmounted || missing) return;
    let after = state.view?.version ?? 0;
    try {
      for (const envelope of await api.history(gameId, held?.token)) {
        dispatch({ kind: "event", version: envelope.version, event: envelope.event });
      }
      after = state.streamVersion;
    } catch {
      // No story, still a live table: follow from the view.
    }
    if (!unmounted) restartStream(after);
  }

  /** Sends a legal action or a seat action. A move is sent with the version it was chosen
   * at: if the game moved on meanwhile it is refused, never played somewhere else. */
  async function act(action, { move = true } = {}) {
    if (isBusy(state) || !held) return;
    const { seat: _seat, ...command } = action;
    if (move) command.expected_version = state.view.version;
    dispatch({ kind: "pending" });
    try {
      const answer = await api.sendCommand(gameId, held.seat, held.token, command);
      // The answer's events also come down the stream, which alone tells the story (so the
      // log has no gap) at the page's pace; the answer's view is shown only if the stream
      // does not bring that position in time.
      if (answer.view) pacer.offer(answer.view);
      else reloadView();
      dispatch({ kind: "accepted", version: answer.version });
    } catch (error) {
      if (error.status === 401) {
        seatLost();
        reloadView();
      } else if (error.code === "version_conflict") {
        // Another tab or a timeout moved first: say so in words, then show the game as it is.
        dispatch({ kind: "error", error: `The game moved on before your move arrived, so it was not played (${error.detail}).` });
        reloadView();
      } else {
        dispatch({ kind: "error", error: error.detail });
      }
    }
  }

  /** The master bot's view of the seat's choices, shown beside them until the game moves. */
  async function askHints() {
    if (!held) return;
    try {
      dispatch({ kind: "hints", hints: await api.getHints(gameId, held.seat, held.token) });
    } catch (error) {
      if (error.status === 401) seatLost();
      else dispatch({ kind: "error", error: error.detail });
    }
  }

  /** A seat action; `question` ([title, text, yes]) is asked first in a dialog. */
  async function lifecycle(action, question) {
    if (question && !(await confirmAction(...question))) return;
    await act(action, { move: false });
  }

  async function copyInvite(link, field) {
    if (await copyText(link)) {
      announce("The invite link is copied.");
    } else {
      field.focus();
      field.select(); // selected for the person to copy by hand
      announce("Copy the selected invite link.");
    }
  }

  async function takeSeat(seat) {
    const name = await askName();
    if (!name) return;
    try {
      await adoptName(name);
      const invite = inviteOf(gameId);
      const grant = await withKey((key) => api.takeSeat(gameId, seat, name, key, invite));
      keepSeat(gameId, grant.seat, grant.token);
      held = { seat: grant.seat, token: grant.token };
      state = initial(gameId, grant.seat);
      stopStream?.();
      start();
    } catch (error) {
      dispatch({ kind: "error", error: error.detail });
    }
  }

  /** The token that may seat bots here: this browser's seat's, else the table's creator's. */
  function botToken() {
    return held?.token || creatorOf(gameId);
  }

  async function addBot(seat) {
    try {
      await api.addBot(gameId, seat, botToken());
    } catch (error) {
      dispatch({ kind: "error", error: error.detail });
    }
  }

  /** Asks for the rematch (unless someone did) and claims this seat there with the old token. */
  async function rematch() {
    try {
      let next = state.rematch;
      if (held) {
        // Asked even once the table is known (everyone gets the same one): a private game's
        // rematch answers with its invitation, for the table's copy-invite button.
        const made = await api.requestRematch(gameId, held.token);
        next = made.game_id;
        if (made.invite) keepInvite(next, made.invite);
        if (!seatOf(next)) { // (a second tab of this browser may have claimed it already)
          const name = playerName() || state.view.seats[held.seat].name || "Player";
          const grant = await api.takeSeat(next, held.seat, name, held.token);
          keepSeat(next, grant.seat, grant.token);
        }
      }
      navigate(`/table/${encodeURIComponent(next)}`);
    } catch (error) {
      dispatch({ kind: "error", error: error.detail });
    }
  }

  function onKey(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    if (/^[1-9]$/.test(event.key) && state.view && !isBusy(state)) {
      const action = orderedActions(state.view)[Number(event.key) - 1];
      if (action) {
        event.preventDefault();
        act(action);
      }
    } else if (state.summary !== null && (event.key === "Escape" || (event.key === "Enter" && !event.target.closest?.("button, a, summary")))) {
      event.preventDefault(); // Enter on a card or a button does what it says; elsewhere it closes
      dismissSummary();
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      const next = nextCard(root, event.key === "ArrowRight" ? 1 : -1);
      if (!next) return;
      event.preventDefault();
      next.focus();
    }
  }

  function onVisibility() {
    if (document.hidden) pacer.flush(); // nobody watches: the game is shown as it is
  }
  // The turn clock ticks in place: the countdowns' text changes, the rest is not redrawn
  // (but when something waiting for a time opens, a seat to take over).
  const ticker = setInterval(() => {
    const now = Date.now();
    for (const el of root.querySelectorAll(".countdown[data-deadline]")) {
      const text = clockText(Number(el.dataset.deadline), now);
      if (el.textContent !== text) el.textContent = text;
    }
    if ([...root.querySelectorAll("[data-opens-at]")].some((el) => Number(el.dataset.opensAt) <= now)) draw();
  }, 250);

  document.addEventListener("keydown", onKey);
  document.addEventListener("visibilitychange", onVisibility);
  draw();
  start();

  return () => {
    unmounted = true;
    clearInterval(ticker);
    clearTimeout(reloadTimer);
    clearTimeout(summaryTimer);
    pacer.flush();
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("visibilitychange", onVisibility);
    stopStream?.();
    showConnection(null);
  };
}

function noSuchTable(gameId) {
  return notFoundPage("No such table", "There is no table ", h("code", {}, gameId), " on this server: the link may be mistyped, or the table expired before its game began.");
}

/** The card ← or → goes to from the focused one: the next playable card that way (all cards
 * when none is playable), from where the focus is, wrapping around. */
function nextCard(root, step) {
  const cards = [...root.querySelectorAll(".hand button.card")];
  if (!cards.length) return null;
  const playable = cards.filter((card) => card.classList.contains("playable"));
  const pool = playable.length ? playable : cards;
  const at = cards.indexOf(document.activeElement);
  if (at < 0) return step > 0 ? pool[0] : pool[pool.length - 1];
  const ahead = pool.filter((card) => (cards.indexOf(card) - at) * step > 0);
  if (ahead.length) return step > 0 ? ahead[0] : ahead[ahead.length - 1];
  return step > 0 ? pool[0] : pool[pool.length - 1];
}

function showConnection(status) {
  const el = document.getElementById("connection");
  if (!el) return;
  el.hidden = !status;
  el.textContent = status ? CONNECTION_TEXT[status] || status : "";
  el.dataset.status = status || "";
}
