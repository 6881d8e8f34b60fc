// The table's state, folded from what the server sends: views (the truth about the game) and
// stream events (the story told to the person, the points of each hand, and the signal that
// the view is out of date). `apply(state, message)` is pure and ignores versions it already
// has; the page reloads the view whenever `stale` is set. No rule of the game is decided here.

import { emptyBook, noteEvent } from "./handbook.js";
import { displayName, namesOf, narrate } from "./narrate.js";

const LOG_LENGTH = 2000; // the whole game's story (a game to 14 tells a few hundred lines)

/** Moves a seat makes itself: made by a bot while the seat's person is away or gone. */
const MOVES = new Set(["Stood", "Begged", "GaveOne", "PackRun", "CardPlayed"]);

/** A table page's state before anything arrived. `seat` is the seat this browser holds. */
export function initial(gameId, seat) {
  return {
    gameId,
    seat,
    view: null,
    names: [null, null, null, null],
    streamVersion: 0,
    gaps: 0, // versions the stream skipped (only an event type this page does not know)
    quietUntil: Infinity, // events up to the first view's version are history: not announced
    stale: true,
    log: [],
    book: emptyBook(), // every hand's points and the running score (handbook.js)
    handNumber: 0,
    absent: [false, false, false, false], // seats whose person is away or gone: a bot plays
    botHands: [[], [], [], []], // per seat, the hands in which a bot moved for its person
    motion: null, // the step on show: {type, seat, at, ms} (the page's pace, for animations)
    summary: null, // the hand whose summary is open over the felt
    pacing: false, // steps of the stream are still on show: the view is not the game's latest
    hints: null, // {version, hints}: the last hints asked for (shown while that version is on)
    lastTrickWinner: null,
    trickCards: [], // the trick in play as this page saw it played: [{seat, card}]
    finalTrick: null, // the last complete trick, kept when a new hand's view has none yet
    connection: "connecting",
    error: null,
    pending: false, // a command is on its way
    settledAt: 0, // the version the last accepted command brought the game to
    rematch: null,
  };
}

/** The state after `message`: {kind: "view"|"event"|"resync"|"connection"|"error"|"pending"|
 * "accepted"|"motion"|"summary"}. */
export function apply(state, message) {
  switch (message.kind) {
    case "view":
      return withView(state, message.view);
    case "event":
      return withEvent(state, message.version, message.event);
    case "resync":
      return { ...initial(state.gameId, state.seat), view: state.view, names: state.names, connection: state.connection };
    case "connection":
      return { ...state, connection: message.status };
    case "error":
      return { ...state, error: message.error, pending: false };
    case "pending":
      return { ...state, pending: true, error: null };
    case "accepted":
      return { ...state, pending: false, settledAt: Math.max(state.settledAt, message.version) };
    case "motion":
      return { ...state, motion: message.motion };
    case "summary":
      return { ...state, summary: message.hand };
    case "hints":
      return { ...state, hints: message.hints };
    case "pacing":
      return state.pacing === message.busy ? state : { ...state, pacing: message.busy };
    default:
      return state;
  }
}

function withView(state, view) {
  if (state.view && view.version < state.view.version) return state;
  const names = namesOf(view).map((name, i) => name ?? state.names[i]);
  return {
    ...state,
    view,
    names,
    rematch: view.rematch ?? state.rematch,
    quietUntil: Math.min(state.quietUntil, view.version),
    stale: state.streamVersion > view.version,
  };
}

function withEvent(state, version, event) {
  if (version <= state.streamVersion) return state;
  const next = {
    ...state,
    streamVersion: version,
    gaps: version > state.streamVersion + 1 ? state.gaps + 1 : state.gaps,
    stale: !state.view || version > state.view.version,
  };
  if (event.type === "PlayerJoined" || event.type === "PlayerReplaced") {
    const name = displayName(event.name, event.bot, event.seat);
    next.names = state.names.map((old, i) => (i === event.seat ? name : old));
  }
  scoreKeeping(next, state, event);
  const text = narrate(event, next.names, state.seat);
  if (text) {
    next.log = [...state.log, { version, text, quiet: version <= state.quietUntil }];
    if (next.log.length > LOG_LENGTH) next.log = next.log.slice(-LOG_LENGTH);
  }
  return next;
}

/** The hands' points, the trick as seen, and who had a bot play for them. */
function scoreKeeping(next, state, event) {
  next.book = noteEvent(state.book, event);
  switch (event.type) {
    case "Dealt":
      next.handNumber = event.hand;
      break;
    case "CardPlayed":
      next.trickCards = [...state.trickCards, { seat: event.seat, card: event.card }];
      break;
    case "TrickWon":
      next.lastTrickWinner = event.seat;
      // Only a trick this page saw whole (a page opened mid-trick has part of it).
      next.finalTrick = state.trickCards.length === event.cards.length ? state.trickCards : null;
      next.trickCards = [];
      break;
    case "RematchCreated":
      next.rematch = event.game_id;
      break;
    default:
      break;
  }
  absence(next, state, event);
}

/** Which seats' people are away or gone, and in which hands a bot moved for them. */
function absence(next, state, event) {
  const seat = event.seat;
  if (event.type === "SeatAway" || event.type === "PlayerLeft") next.absent = state.absent.map((a, i) => a || i === seat);
  if (event.type === "SeatBack" || event.type === "PlayerReplaced") next.absent = state.absent.map((a, i) => a && i !== seat);
  const forAbsent = MOVES.has(event.type) && state.absent[seat];
  if ((forAbsent || event.type === "TurnTimedOut") && !state.botHands[seat].includes(state.handNumber)) {
    next.botHands = state.botHands.map((hands, i) => (i === seat ? [...hands, state.handNumber] : hands));
  }
}

/** True while a command is on its way or its outcome is not in the view yet, or while the
 * stream's steps are still on show (a deal before its kick is turned, a trick before it is
 * swept): the page offers no action then, so nothing is sent against a position that is not
 * the game's. */
export function isBusy(state) {
  return state.pending || state.pacing || (state.view !== null && state.view.version < state.settledAt);
}

/** The messages not yet said aloud: those after the history the page loaded with. */
export function freshLines(before, after) {
  const seen = before.log.length ? before.log[before.log.length - 1].version : 0;
  return after.log.filter((line) => line.version > seen && !line.quiet).map((line) => line.text);
}
