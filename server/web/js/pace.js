// The table's pace: what the stream tells (each event with the view after it, `view_each`)
// is shown one step after another, at a speed a person can follow, never all at once. The
// server plays bots at once; only this queue spaces their moves, so API clients and the curl
// walkthrough see the game at the server's speed and a person sees it at theirs.
//
// The queue never falls behind the stream for long: a backlog is shown faster (and at once
// beyond a dozen steps), a hidden tab or `prefers-reduced-motion` shows every step at once,
// and when the person's own turn clock runs at the end of the queue, watching the steps
// before it may take at most a fifth of the time left. Timers are passed in, so a test steps through the queue without sleeping.

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

/** Steps one command brings (a bot's trick and the next lead) are shown at the full pace;
 * beyond this many waiting, each wait shortens; beyond CATCH_UP_AT, the backlog is shown at once. */
const BATCH = 6;
const CATCH_UP_AT = 12;
/** The share of the person's time left that the steps before their turn may take. */
const CLOCK_SHARE = 0.2;

/**
 * A queue of steps `{version, event, view}`. `show(step, ms)` draws a step (ms: how long it
 * stays, for the animations); `idle()` is called when the queue has drained and the last wait
 * ended. `factor()` is the speed factor now (0: instant); `clockLeft(view)` is the time (ms)
 * left on the person's own clock in `view`, or null when it does not run for them.
 * `timers`: `{set(fn, ms), clear(id)}`.
 */
export function createPacer({ show, idle, factor, clockLeft, timers }) {
  const queue = [];
  let timer = null;
  let shownVersion = 0;
  let heldView = null;
  let heldTimer = null;

  const baseOf = (step) => (step.event ? STEP_MS[step.event.type] || 0 : 0);

  function waitFor(step) {
    const base = baseOf(step);
    if (!base || step.version <= shownVersion) return 0;
    if (queue.length > CATCH_UP_AT) return 0;
    const backlog = 1 + Math.max(0, queue.length - BATCH) / 2;
    let f = factor() / backlog;
    const last = queue.length ? queue[queue.length - 1].view : step.view;
    const left = last ? clockLeft(last) : null;
    if (left !== null && f > 0) {
      const watching = [step, ...queue].reduce((sum, s) => sum + baseOf(s), 0) * f;
      const budget = Math.max(0, left * CLOCK_SHARE);
      if (watching > budget) f *= budget / watching;
    }
    return Math.round(base * f);
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
