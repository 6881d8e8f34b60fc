// The table's pace: what the stream tells (each event with the view after it, `view_each`)
// is shown one step after another, at a speed a person can follow, never all at once. The
// server plays bots at once; only this queue spaces their moves, so API clients and the curl
// walkthrough see the game at the server's speed and a person sees it at theirs.
//
// The queue never falls behind the stream for long: a backlog is shown faster (and at once
// beyond a dozen steps), a hidden tab or `prefers-reduced-motion` shows every step at once,
// and while the person's own turn clock runs the waits shrink so its time is not spent
// watching. Timers are passed in, so a test steps through the queue without sleeping.

/** How long a step stays before the next one, at the normal speed, by its event's type. */
export const STEP_MS = {
  Dealt: 900,
  Redealt: 900,
  Revealed: 500,
  CardPlayed: 650,
  TrickWon: 1500, // the whole trick stays long enough to read, then sweeps to its winner
  HandScored: 5000, // the hand's summary: dismissed earlier by a click or a key
};

/** The speeds a person may choose, as factors of the normal waits. */
export const SPEEDS = { slow: 1.6, normal: 1, fast: 0.5, instant: 0 };

/** Beyond this many steps waiting, the backlog is shown at once. */
const CATCH_UP_AT = 12;
/** The factor while the person's own clock runs: a glance at each move, not a show. */
const URGENT_FACTOR = 0.3;

/**
 * A queue of steps `{version, event, view}`. `show(step, ms)` draws a step (ms: how long it
 * stays, for the animations); `idle()` is called when the queue has drained and the last wait
 * ended. `factor()` is the speed factor now (0: instant); `urgent(view)` tells whether the
 * person's clock runs in `view`. `timers`: `{set(fn, ms), clear(id)}`.
 */
export function createPacer({ show, idle, factor, urgent, timers }) {
  const queue = [];
  let timer = null;
  let shownVersion = 0;
  let heldView = null;
  let heldTimer = null;

  function waitFor(step) {
    const base = step.event ? STEP_MS[step.event.type] || 0 : 0;
    if (!base || step.version <= shownVersion) return 0;
    if (queue.length > CATCH_UP_AT) return 0;
    let f = factor();
    const last = queue.length ? queue[queue.length - 1].view : step.view;
    if (last && urgent(last)) f = Math.min(f, URGENT_FACTOR);
    return Math.round((base * f) / (1 + queue.length / 3));
  }

  function pump() {
    if (timer !== null) return;
    const step = queue.shift();
    if (!step) return;
    const ms = waitFor(step);
    shownVersion = Math.max(shownVersion, step.version);
    show(step, ms);
    timer = timers.set(() => {
      timer = null;
      if (queue.length) pump();
      else idle();
    }, ms);
  }

  return {
    /** A step the stream told: shown after the ones before it. */
    push(step) {
      if (heldView && step.version >= heldView.version) dropHeld();
      queue.push(step);
      pump();
    },
    /** A view from elsewhere (a command's answer, a reload): the stream's own steps will
     * show that position in order, so it is used only if they do not come in time. */
    offer(view) {
      if (view.version <= shownVersion || queue.some((s) => s.version >= view.version)) return;
      if (heldView && heldView.version >= view.version) return;
      dropHeld();
      heldView = view;
      heldTimer = timers.set(() => {
        heldTimer = null;
        const late = heldView;
        heldView = null;
        if (late && late.version > shownVersion) {
          queue.push({ version: late.version, event: null, view: late });
          pump();
        }
      }, 1500);
    },
    /** Ends the current wait (the person dismissed the hand's summary, or is in a hurry). */
    hurry() {
      if (timer === null) return;
      timers.clear(timer);
      timer = null;
      if (queue.length) pump();
      else idle();
    },
    /** Shows everything waiting at once (a resync starts the story over). */
    flush() {
      while (queue.length) {
        const step = queue.shift();
        shownVersion = Math.max(shownVersion, step.version);
        show(step, 0);
      }
      if (timer !== null) timers.clear(timer);
      timer = null;
      idle();
    },
    /** Steps waiting or one still on show. */
    get busy() {
      return timer !== null || queue.length > 0;
    },
    /** Forgets what was shown: a new story from the start (after a resync). */
    reset() {
      this.flush();
      shownVersion = 0;
      dropHeld();
    },
  };

  function dropHeld() {
    if (heldTimer !== null) timers.clear(heldTimer);
    heldTimer = null;
    heldView = null;
  }
}
