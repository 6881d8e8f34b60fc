// The lobby's "Play people" panel: joins the matchmaking queue (alone or with a partner, with
// bots to fill the table after a wait the person chose), polls the ticket every two seconds
// (the poll is the heartbeat that keeps the person in the queue), shows the wait, the rating
// band and the live counts, and once seated takes a seat token and opens the table. Leaving
// the page or Cancel leaves the queue.

import * as api from "./api.js";
import { announce } from "./dom.js";
import { adoptName, ensureIdentity } from "./identity.js";
import { sentence } from "./narrate.js";
import { bandText, countsText, renderQueue, waitText } from "./queueview.js";
import { keepSeat, playerName } from "./seats.js";

const POLL_MS = 2000;
const STATS_MS = 5000;

/** Mounts the panel into `root`; returns the function that unmounts it (and leaves). */
export function mountQueue(root, { navigate }) {
  let key = null;
  let waiting = false;
  let since = null;
  let pollTimer = null;
  let unmounted = false;
  const panel = renderQueue({ onJoin: join, onCancel: cancel });
  root.replaceChildren(panel);
  const part = (id) => panel.querySelector(`#${id}`);
  const say = (text) => {
    part("queue-status").textContent = text;
  };

  function show(isWaiting) {
    waiting = isWaiting;
    part("queue-form").hidden = isWaiting;
    part("queue-wait").hidden = !isWaiting;
  }

  async function join(form) {
    say("");
    const held = await ensureIdentity();
    if (!held) {
      say("Playing people needs a player identity, and the server would not make one now. Try again later.");
      return;
    }
    key = held.key;
    await adoptName(playerName()); // the name typed in the lobby is the one the table shows
    const partner = (form.get("partner") || "").trim() || null;
    const botsAfter = form.get("bots") === "on" ? Number(form.get("bots_after_s")) || 60 : null;
    try {
      const ticket = await api.joinQueue(key, { partner, botsAfter });
      if (unmounted) return;
      show(true);
      part("queue-cancel").focus();
      announce("You are in the queue.");
      onTicket(ticket);
    } catch (error) {
      say(sentence(error.detail));
    }
  }

  async function cancel() {
    stopPolling();
    show(false);
    part("queue-join").focus();
    try {
      await api.leaveQueue(key);
      say("You left the queue.");
    } catch (error) {
      say(sentence(error.detail));
    }
  }

  function onTicket(ticket) {
    if (unmounted) return;
    if (ticket.status === "seated") return seated(ticket);
    if (ticket.status === "idle") {
      // Dropped (a heartbeat missed) or left from another tab; any other status (a table
      // being made) is still a wait.
      stopPolling();
      show(false);
      say("You are no longer in the queue.");
      return;
    }
    since = ticket.waiting_since ?? since ?? Date.now();
    if (since < 1e12) since *= 1000; // seconds, not ms
    tick();
    part("queue-band").textContent = `Looking at ${bandText(ticket.band)}${ticket.partner ? ", with your partner" : ""}${ticket.bots_after_s ? `; bots fill the table after ${ticket.bots_after_s} s` : ""}.`;
    if (ticket.waiting !== undefined) showCounts(ticket);
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, POLL_MS);
  }

  async function poll() {
    try {
      onTicket(await api.pollQueue(key));
    } catch (error) {
      if (unmounted) return;
      say(`The queue cannot be reached: ${error.detail} Trying again.`);
      pollTimer = setTimeout(poll, POLL_MS);
    }
  }

  async function seated(ticket) {
    stopPolling();
    waiting = false;
    say("A table is ready: taking your seat…");
    try {
      const grant = await api.reissueSeatToken(ticket.game_id, ticket.seat, key);
      keepSeat(grant.game_id, grant.seat, grant.token);
      if (!unmounted) navigate(`/table/${encodeURIComponent(grant.game_id)}`);
    } catch (error) {
      show(false);
      say(`Your table is ready but the seat could not be taken: ${error.detail}`);
    }
  }

  function stopPolling() {
    clearTimeout(pollTimer);
    pollTimer = null;
  }

  function tick() {
    if (waiting && since !== null) part("queue-waited").textContent = waitText(Date.now() - since);
  }

  function showCounts(stats) {
    part("queue-counts").textContent = countsText(stats);
  }

  async function refreshStats() {
    try {
      const stats = await api.queueStats();
      if (!unmounted) showCounts(stats);
    } catch (error) {
      if (unmounted) return;
      if (error.status === 404) {
        // A server without matchmaking: nothing to join.
        part("queue-join").disabled = true;
        part("queue-counts").textContent = "This server does not match people yet.";
      }
    }
  }

  /** A ticket this person already holds (the lobby reloaded while waiting) is taken up. */
  async function resume() {
    const held = await ensureIdentity();
    if (!held || unmounted) return;
    try {
      const ticket = await api.pollQueue(held.key);
      if (ticket.status === "waiting" && !unmounted && !waiting) {
        key = held.key;
        show(true);
        onTicket(ticket);
      }
    } catch {
      // No queue here, or no ticket: the form stays.
    }
  }

  const ticker = setInterval(tick, 1000);
  const statsTimer = setInterval(() => document.visibilityState === "visible" && refreshStats(), STATS_MS);
  refreshStats();
  resume();
  return () => {
    unmounted = true;
    clearInterval(ticker);
    clearInterval(statsTimer);
    stopPolling();
    if (waiting && key) api.leaveQueue(key).catch(() => {});
  };
}
