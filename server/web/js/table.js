// The table: renders a table page's state (see state.js) into elements. It never fetches and
// decides no rule: the buttons are exactly the view's `legal_actions`, and every click goes to
// the handlers the page passes in (`act`, `lifecycle`, `takeSeat`, `addBot`, `rematch`).

import { h } from "./dom.js";
import { inviteBox } from "./invite.js";
import { cardName, suitName } from "./cards.js";
import { cardBack, cardButton } from "./cardview.js";
import { POSITIONS, handFacts, kicksCorner, motionStyle, moving, trickCross } from "./felt.js";
import { sidePanels } from "./tableside.js";
import { handSummary } from "./summary.js";
import { TEAM_NAMES, namesOf, scoreLine, seatLabel } from "./narrate.js";
import { isBusy } from "./state.js";
import { SPEEDS } from "./pace.js";

const ACTION_LABELS = {
  stand: "Stand",
  beg: "Beg",
  give_one: "Give one",
  run_pack: "Run the pack",
};

/** The legal actions in the order the page offers them (and numbers them for the keyboard):
 * the calls first, then the playable cards in the order of the hand. */
export function orderedActions(view) {
  const calls = view.legal_actions.filter((a) => a.type !== "play");
  const plays = view.legal_actions.filter((a) => a.type === "play");
  const hand = view.hand || [];
  plays.sort((a, b) => hand.indexOf(a.card) - hand.indexOf(b.card));
  return [...calls, ...plays];
}

/** Seconds left before `deadline` (ms since the epoch) as "0:23". */
export function clockText(deadline, now) {
  const left = Math.max(0, Math.ceil((deadline - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

function countdown(deadline, now) {
  return h(
    "span",
    { class: "countdown", "data-deadline": deadline, role: "timer", "aria-label": "time left" },
    clockText(deadline, now),
  );
}

export function renderTable(state, handlers) {
  const view = state.view;
  if (!view) {
    return h("section", { class: "panel loading" }, h("p", {}, state.error || "Loading the table…"));
  }
  const me = view.viewer;
  // Away, the seat is the bot's: nothing is offered until "I'm back" (the server would take
  // a move, but the person asked not to be asked).
  const actions = me !== null && view.seats[me].away ? [] : orderedActions(view);
  return h(
    "section",
    {
      class: "table-page",
      "data-version": view.version,
      "data-phase": view.phase,
      "data-viewer": me ?? "spectator",
      "data-stream": state.streamVersion,
      "data-gaps": state.gaps,
      "data-paused": String(Boolean(view.paused)),
      "data-motion": state.motion?.type ?? "",
      "data-motion-ms": state.motion?.ms ?? 0,
      "aria-labelledby": "table-title",
    },
    // The screen a person plays on fits the viewport (style.css); the panels come beside it
    // on a wide screen, below it on a narrow one.
    h(
      "div",
      { class: "table-screen" },
      tableBar(state, view, handlers),
      felt(state, view, handlers),
      view.phase === "ended"
        ? lifecycle(state, view, handlers) // the result and what comes next take the dock's place
        : h(
            "div",
            { class: "dock" },
            controls(state, view, actions, handlers),
            view.phase === "seating" && handlers.inviteLink?.() ? inviteBox(handlers.inviteLink(), handlers.copyInvite) : null,
            me === null ? spectatorNote(view) : hand(view, actions, state, handlers),
          ),
    ),
    sidePanels(state, view, handlers),
  );
}

/** The table's name, as the lobby gives it: its first person's ("Ann's table"). */
export function tableName(names) {
  const first = names.find((name) => name && !/^Bot \d$/.test(name));
  return first ? `${first}’s table` : "A table";
}

/** One line above the felt: whose table, who you are, both scores, and the table's tools. */
function tableBar(state, view, handlers) {
  const me = view.viewer;
  const who = me === null ? "Watching" : `Seat ${me + 1} · ${TEAM_NAMES[view.seats[me].team]}`;
  const name = tableName(state.names);
  return h(
    "div",
    { class: "table-bar" },
    h(
      "div",
      { class: "table-head" },
      h("h1", { id: "table-title", title: `${name} (${state.gameId})` }, name),
      h("p", { class: "who" }, who),
    ),
    scoreboard(view, me),
    h(
      "div",
      { class: "tools" },
      // The narrowest phones show "Score" (the title keeps its room); the button's name stays whole.
      h(
        "button",
        { type: "button", class: "small", "data-key": "score-sheet", "aria-label": "Score sheet", onclick: () => handlers.showSheet() },
        "Score",
        h("span", { class: "sheet-word" }, " sheet"),
      ),
      h(
        "label",
        { class: "speed" },
        h("span", { class: "speed-label" }, "Pace"),
        h(
          "select",
          { "data-key": "speed", title: "Pace of the bots’ moves", onchange: (event) => handlers.setSpeed(event.target.value) },
          Object.keys(SPEEDS).map((speed) => h("option", { value: speed, selected: speed === handlers.speed() }, `${speed[0].toUpperCase()}${speed.slice(1)}`)),
        ),
      ),
      seatMenu(state, view, handlers),
    ),
  );
}

function teamMembers(view, team) {
  return view.seats
    .filter((seat) => seat.team === team)
    .sort((a, b) => (b.seat === view.viewer) - (a.seat === view.viewer)) // "You & Ann"
    .map((seat) => (seat.name === null && seat.bot === null ? "open seat" : seatLabel(namesOf(view), seat.seat, view.viewer)))
    .join(" & ");
}

function scoreboard(view, me) {
  const target = view.rules.target;
  const mine = me === null ? null : view.seats[me].team;
  return h(
    "div",
    { class: "scoreboard", role: "group", "aria-label": "Scores" },
    [0, 1].map((team) =>
      h(
        "div",
        {
          class: `team team-${team}${team === mine ? " mine" : ""}${view.winner === team ? " winner" : ""}`,
          "data-team": team,
        },
        h("span", { class: "team-name" }, TEAM_NAMES[team], team === mine ? h("span", { class: "you-mark" }, " (you)") : null),
        h("span", { class: "team-members", title: teamMembers(view, team) }, teamMembers(view, team)),
        h(
          "span",
          { class: "team-score", "aria-label": `${view.scores[team]} of ${target} points` },
          h("b", { "data-score": team }, String(view.scores[team])),
          h("small", {}, ` / ${target}`),
        ),
        h(
          "span",
          { class: "meter", "aria-hidden": "true" },
          h("span", { class: "meter-fill", style: { width: `${Math.min(100, (100 * view.scores[team]) / target)}%` } }),
        ),
      ),
    ),
  );
}

function felt(state, view, handlers) {
  const me = view.viewer ?? 0;
  const now = handlers.now();
  const seats = [0, 1, 2, 3].map((k) => seatPlate(state, view, (me + k) % 4, POSITIONS[k], handlers));
  const summary = state.summary === null ? null : state.book.hands.find((hand) => hand.number === state.summary);
  // Between a hand's scoring and the next deal the view is the next hand's (its number, its
  // dealer) but still holds the last hand's kicks and trump: the felt shows the next hand's,
  // none yet (hand 2 beside hand 1's kick and trump read as one hand: an outside trial).
  const between = view.phase === "dealing";
  return h(
    "div",
    { class: `felt${view.paused ? " paused" : ""}`, role: "group", "aria-label": "The table" },
    seats,
    kicksCorner(between ? [] : view.kicks),
    handFacts(view.hand_number, between ? null : view.trump, view.rules.turn_seconds),
    h(
      "div",
      { class: "centre" },
      h("div", { class: "status", id: "status" }, feltStatus(state, view)),
      centreTrick(state, view, me, now),
    ),
    summary ? handSummary(summary, view.rules.target, handlers.dismissSummary) : null,
  );
}

/** The trick in play; before its first card, the last trick stays on the cloth (dimmed; the
 * status says who won it), and while a won trick is on show it stays whole and then sweeps to
 * its winner. */
function centreTrick(state, view, me, now) {
  const names = namesOf(view);
  const previous = view.trick.length === 0 && view.last_trick.length > 0;
  const sweeping = previous && moving(state.motion, now, "TrickWon");
  const cross = trickCross(previous ? view.last_trick : view.trick, { bottom: me, names, viewer: view.viewer, motion: state.motion, now });
  if (!previous) return h("div", { class: "trick-area" }, cross);
  if (!sweeping) cross.classList.add("previous");
  cross.setAttribute("aria-label", `Last trick: ${cross.getAttribute("aria-label").replace(/^Trick: /, "")}`);
  return h("div", { class: "trick-area" }, cross);
}

/** The felt's status: between two tricks, who won the last one (on show, dimmed) and leads.
 * A note in the middle of the trick said so where no card lies: too small to read between
 * the cards, and no room for it at all on a phone (an outside trial). */
function feltStatus(state, view) {
  const winner = state.lastTrickWinner;
  const between = view.phase === "playing" && !view.paused && view.trick.length === 0 && view.last_trick.length > 0;
  if (!between || winner === null || winner !== view.to_act) return statusLine(state, view);
  return winner === view.viewer ? "You won the trick: your lead" : `${seatLabel(namesOf(view), winner, view.viewer)} won the trick and leads`;
}

function seatPlate(state, view, seat, position, handlers) {
  const info = view.seats[seat];
  const names = namesOf(view);
  const open = info.name === null && info.bot === null;
  const toAct = view.to_act === seat && view.phase !== "ended";
  const badges = [
    h("span", { class: `badge team-badge team-${info.team}` }, TEAM_NAMES[info.team]),
    view.dealer === seat && view.phase !== "seating" ? h("span", { class: "badge dealer" }, "Dealer") : null,
    info.bot ? h("span", { class: "badge bot" }, "Bot") : null,
    info.away ? h("span", { class: "badge away" }, "Away") : null,
    info.left ? h("span", { class: "badge left" }, "Left") : null,
  ];
  return h(
    "div",
    {
      class: `seat seat-${position} seat-team-${seat & 1}${toAct ? " to-act" : ""}${seat === view.viewer ? " me" : ""}`,
      "data-seat": seat,
      "aria-label": `Seat ${seat + 1}`,
      role: "group",
    },
    h(
      "div",
      { class: "seat-name", title: open ? null : names[seat] || seatLabel(names, seat, view.viewer) },
      open ? h("span", { class: "open" }, "Open seat") : seatLabel(names, seat, view.viewer),
      toAct ? h("span", { class: "turn" }, " ▶ to act") : null,
    ),
    h("div", { class: "badges" }, badges),
    (info.left || info.away) && view.viewer === null && view.phase !== "ended" ? takeOverOffer(info, seat, handlers) : null,
    open
      ? seatOffers(state, view, seat, handlers)
      : h(
          "div",
          { class: "held" },
          h("span", { class: "backs", "aria-hidden": "true" }, Array.from({ length: Math.min(info.cards_held, 6) }, () => cardBack("mini"))),
          view.hand_number
            ? h("span", { class: "count" }, `${info.cards_held} card${info.cards_held === 1 ? "" : "s"}`)
            : h("span", { class: "count" }, "Seated"),
          toAct && view.deadline ? countdown(view.deadline, handlers.now()) : null,
        ),
  );
}

/** "Take over this seat" for a watcher: at once for a seat its person left; for an away
 * person's, only once their grace has run out (`takeover_at`), counted down until then (the
 * server refused an early click with its own words: "seat 0's person is away…"). */
function takeOverOffer(info, seat, handlers) {
  const now = handlers.now();
  const waiting = info.takeover_at !== null && info.takeover_at > now;
  return h(
    "div",
    { class: "offers" },
    h(
      "button",
      { type: "button", class: "small primary", "data-key": `take-${seat}`, disabled: waiting, "data-opens-at": waiting ? info.takeover_at : null, onclick: () => handlers.takeSeat(seat) },
      waiting ? ["Take over in ", countdown(info.takeover_at, now)] : "Take over this seat",
    ),
  );
}

function seatOffers(state, view, seat, handlers) {
  const mine = view.viewer !== null;
  if ((view.reserved || []).includes(seat) && view.reserved_until > handlers.now()) {
    return h("div", { class: "offers" }, h("span", { class: "badge" }, "Kept for its player from the last game"));
  }
  return h(
    "div",
    { class: "offers" },
    mine ? null : h("button", { type: "button", class: "small primary", "data-key": `sit-${seat}`, onclick: () => handlers.takeSeat(seat) }, "Sit here"),
    // Only the table's creator or a person at it may seat bots (the server refuses others).
    handlers.mayAddBots() ? h("button", { type: "button", class: "small", "data-key": `bot-${seat}`, onclick: () => handlers.addBot(seat) }, "Add a bot") : null,
  );
}

function statusLine(state, view) {
  const names = namesOf(view);
  const who = view.to_act === null ? null : seatLabel(names, view.to_act, view.viewer);
  const you = view.to_act !== null && view.to_act === view.viewer;
  if (view.paused && view.phase !== "ended") return "Paused until a player comes back";
  switch (view.phase) {
    case "new":
    case "seating": {
      const open = view.seats.filter((s) => s.name === null && s.bot === null).length;
      return `Waiting for ${open} more player${open === 1 ? "" : "s"}`;
    }
    case "dealing":
      return "Dealing…";
    case "begging":
      return you ? "Your call: stand or beg?" : `${who} decides: stand or beg`;
    case "dealer_choice":
      return you ? "You dealt: give one or run the pack?" : `${who} (dealer) chooses: give one or run the pack`;
    case "playing":
      return you ? "Your turn: play a card" : `${who} to play`;
    case "ended":
      return endText(view);
    default:
      return view.phase;
  }
}

const CLOSED = {
  expired: "The table closed: nobody came in time",
  idle: "Closed: nobody played for a long while",
  aborted: "The table was closed",
};

/** The result as the viewer reads it: "You win, 14–9" for a seated person, else the team's. */
export function endText(view) {
  if (view.winner === null || view.winner === undefined) return CLOSED[view.end_reason] || CLOSED.aborted;
  const me = view.viewer;
  const mine = me === null ? null : view.seats[me].team;
  const why = view.end_reason === "resigned" ? ` (${mine === 1 - view.winner ? "your team" : TEAM_NAMES[1 - view.winner]} resigned)` : "";
  const who = mine === null ? `${TEAM_NAMES[view.winner]} wins` : mine === view.winner ? "You win" : "You lose";
  const scores = mine === null ? scoreLine(view.scores, view.winner) : scoreLine(view.scores, mine);
  return `${who}, ${scores}${why}`;
}

function promptText(state, view) {
  if (view.viewer === null) return "Watching";
  if (view.seats[view.viewer].away) return view.paused ? "You are away: the game waits for you" : "You are away: a bot plays your seat";
  return statusLine(state, view);
}

function controls(state, view, actions, handlers) {
  const calls = actions.filter((a) => a.type !== "play");
  const prompt = actions.length > 0 && view.to_act === view.viewer && view.phase !== "ended";
  // A refusal takes the prompt's place, on the same line: nothing below moves.
  return h(
    "div",
    { class: `controls${prompt ? " your-turn" : ""}`, role: "group", "aria-label": "Your actions" },
    h("p", { class: "error", role: "alert", id: "problem" }, state.error || ""),
    state.error ? null : h("p", { class: "prompt" }, promptText(state, view)),
    // The calls wrap as one group: "Stand" beside the prompt and "Beg" below it read as apart.
    calls.length ? h("span", { class: "calls" }, calls.map((action, i) => callButton(state, view, handlers, action, i))) : null,
    prompt ? hintButton(state, view, handlers) : null,
    // On a phone the clock shows its time only, so the dock keeps one row on the person's turn.
    prompt && view.deadline ? h("span", { class: "clock" }, h("span", { class: "clock-words" }, "Time left "), countdown(view.deadline, handlers.now())) : null,
    (view.seat_actions || [])
      .filter((action) => action.type === "come_back")
      .map((action) =>
        h("button", { type: "button", class: "primary", "data-seat-action": "come_back", "data-key": "seat-come_back", disabled: isBusy(state), onclick: () => handlers.lifecycle(action) }, "I’m back"),
      ),
  );
}

/** A call of the bidding (stand, beg, give one, run the pack), numbered for the keyboard. */
function callButton(state, view, handlers, action, i) {
  return h(
    "button",
    {
      type: "button",
      class: "primary",
      "data-action": action.type,
      "data-key": `action-${action.type}`,
      "aria-keyshortcuts": String(i + 1),
      disabled: isBusy(state),
      onclick: () => handlers.act(action),
    },
    h("span", { class: "keycap", "aria-hidden": "true" }, String(i + 1)),
    ACTION_LABELS[action.type] || action.type,
    chanceBadge(hintsFor(state, view), action),
  );
}

/** The hints asked for at this very position, or null. */
function hintsFor(state, view) {
  return state.hints && state.hints.version === view.version ? state.hints.hints : null;
}

function sameAction(a, b) {
  return a.type === b.type && (a.card ?? null) === (b.card ?? null);
}

/** "62%" beside an action once hints were asked for; the best one is starred. */
function chanceBadge(hints, action) {
  if (!hints || !hints.length) return null;
  const at = hints.findIndex((hint) => sameAction(hint.action, action));
  if (at < 0) return null;
  const percent = `${Math.round(100 * hints[at].win_probability)}%`;
  return h("span", { class: `chance${at === 0 ? " best" : ""}`, "data-chance": hints[at].win_probability, "aria-label": `${at === 0 ? "best, " : ""}${percent} to win` }, at === 0 ? `★ ${percent}` : percent);
}

function hintButton(state, view, handlers) {
  if (hintsFor(state, view) || view.rated) return null; // a rated table answers no hints
  return h("button", { type: "button", class: "small", "data-key": "hint", disabled: isBusy(state), onclick: () => handlers.askHints(), title: "The master bot's chance to win after each of your choices" }, "Hint");
}

function hand(view, actions, state, handlers) {
  const cards = view.hand || [];
  const playable = new Map();
  actions.forEach((action, i) => {
    if (action.type === "play") playable.set(action.card, { action, number: i + 1 });
  });
  const myTurn = actions.length > 0 && view.to_act === view.viewer && view.phase === "playing";
  const busy = isBusy(state);
  const now = handlers.now();
  const dealing = moving(state.motion, now, "Dealt");
  return h(
    "div",
    { class: "hand-area" },
    h("h2", { class: "sr-only" }, "Your hand"),
    h(
      "div",
      { class: `hand n${cards.length}`, role: "group", "aria-label": `Your hand, ${cards.length} cards`, tabindex: "-1", "data-key": "hand", "data-focus-home": "hand" },
      cards.map((code, i) => {
        const offer = playable.get(code);
        const label = offer
          ? `Play the ${cardName(code)}`
          : `${cardName(code)}${myTurn ? ", cannot be played now" : ""}`;
        // Unplayable cards stay focusable (aria-disabled, not disabled): the focus stays in
        // the hand between turns, and a screen reader can read the whole hand.
        const button = cardButton(code, {
          key: `card-${code}`,
          label,
          inert: !offer || busy,
          extra: offer && !busy ? "playable" : myTurn && !offer ? "unplayable" : "",
          number: offer && offer.number <= 9 ? offer.number : null,
          onclick: offer && !busy ? () => handlers.act(offer.action) : null,
        });
        button.dataset.focusGroup = "hand";
        if (offer) button.append(chanceBadge(hintsFor(state, view), offer.action) ?? "");
        if (dealing) {
          button.classList.add("dealt");
          Object.assign(button.style, motionStyle(state.motion, now, 320, i * 70));
        }
        return button;
      }),
    ),
    h("p", { class: "rule-hint", id: "rule-hint" }, myTurn ? whyGreyed(view, cards, playable) : ""),
  );
}

/** Why the greyed cards cannot be played, in the rules' words. The server decided which cards
 * may be played (the view's legal actions); this only names the rule that greys the others. */
function whyGreyed(view, cards, playable) {
  const greyed = cards.filter((code) => !playable.has(code));
  if (greyed.length === 0) return "";
  const led = view.trick.length > 0 ? view.trick[0].card[1] : null;
  const reasons = [];
  if (led !== null && greyed.some((code) => code[1] !== led && code[1] !== view.trump)) {
    reasons.push(led === view.trump ? "Trumps were led: follow with a trump" : `Follow ${suitName(led)} or play a trump`);
  }
  if (led !== null && led !== view.trump && greyed.some((code) => code[1] === view.trump)) {
    reasons.push("no undertrumping: a trump below the highest in the trick only when you have nothing else to play");
  }
  const why = reasons.length > 0 ? reasons.join("; ") : "These cards cannot be played now";
  return `${why.charAt(0).toUpperCase()}${why.slice(1)}.`;
}

function spectatorNote(view) {
  return h(
    "p",
    { class: "spectator-note" },
    "You are watching: hands stay hidden until their cards are played.",
  );
}

const SEAT_ACTIONS = {
  step_away: {
    label: "Step away",
    question: ["Step away from the table?", "While you are away a bot plays your seat at the table’s pace; when nobody is left at the table the game waits for you.", "Step away"],
  },
  abort: { label: "Abort the table", question: ["Close this table?", "The table closes for everyone; no result is kept.", "Close the table"] },
  resign: { label: "Resign", question: ["Resign the game?", "Your team loses the game now.", "Resign"] },
  leave: { label: "Leave the table", question: ["Leave the table?", "A bot plays your seat to the end, and someone may take it over.", "Leave"] },
};

/** Stepping away, leaving, resigning, aborting: exactly the view's `seat_actions` (servers
 * without the table lifecycle send none), behind one menu button so the dock stays one line.
 * "I’m back" is offered in the dock itself. */
function seatMenu(state, view, handlers) {
  const actions = (view.seat_actions || []).filter((action) => action.type !== "come_back");
  if (view.phase === "ended" || !actions.length) return null;
  return h(
    "details",
    { class: "menu", "data-key": "seat-menu-open" },
    h("summary", { class: "button small", "data-key": "seat-menu" }, "Table ▾"),
    h(
      "div",
      { class: "menu-items", role: "group", "aria-label": "Your seat" },
      actions.map((action) => {
        const known = SEAT_ACTIONS[action.type] || { label: action.type };
        return h(
          "button",
          {
            type: "button",
            class: "small",
            "data-seat-action": action.type,
            "data-key": `seat-${action.type}`,
            disabled: isBusy(state),
            onclick: (event) => {
              event.target.closest("details")?.removeAttribute("open");
              handlers.lifecycle(action, known.question);
            },
          },
          known.label,
        );
      }),
    ),
  );
}

/** "a bot played 2 hands for you": the result says when the seat's person was not playing. */
function botNote(state, view) {
  const me = view.viewer;
  if (me === null) return null;
  const hands = state.botHands[me].length;
  if (!hands) return null;
  return h("p", { class: "bot-note" }, `A bot played ${hands} hand${hands === 1 ? "" : "s"} for you (while you were away or out of time).`);
}

/** At the end: the result, then the rematch, the replay, the lobby. */
function lifecycle(state, view, handlers) {
  const me = view.viewer;
  const buttons = [];
  if (state.rematch) {
    buttons.push(h("button", { type: "button", class: "primary", "data-key": "join-rematch", onclick: () => handlers.rematch() }, me === null ? "Watch the rematch" : "Join the rematch"));
  } else if (me !== null && "rematch" in view && view.winner !== null) {
    buttons.push(h("button", { type: "button", class: "primary", "data-key": "rematch", onclick: () => handlers.rematch() }, "Rematch"));
  }
  buttons.push(h("a", { class: "button", href: `/replay/${encodeURIComponent(state.gameId)}`, "data-link": true }, "Replay this game"));
  buttons.push(h("a", { class: "button", href: "/", "data-link": true }, "Back to the lobby"));
  return h(
    "div",
    { class: "lifecycle ended" },
    // The focus moves here when the game ends (data-focus-next): the result is read first.
    h("p", { class: "result", role: "status", tabindex: "-1", "data-key": "result", "data-focus-next": true }, endText(view)),
    botNote(state, view),
    // A refused rematch says why here: the dock and its line for refusals are gone.
    h("p", { class: "error", role: "alert", id: "problem" }, state.error || ""),
    h("div", { class: "buttons" }, buttons),
  );
}
