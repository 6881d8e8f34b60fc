// A finished game's table at any point of its log, for the replay viewer: every hand
// face-up, the trick in play, the last trick and who won it, the kicks, the trump, the scores
// and the awards of the last scored hand. Pure: the log and a position in, a picture out.

import { displayName } from "./narrate.js";

/** The table after the first `position` events of `events`. */
export function tableAt(events, position) {
  const t = {
    names: [null, null, null, null],
    bots: [null, null, null, null],
    dealer: null,
    hand: 0,
    hands: [[], [], [], []],
    trick: [],
    lastTrick: null, // {cards: [{seat, card}], winner}
    kicks: [],
    trump: null,
    scores: [0, 0],
    target: 14,
    awards: null, // {hand, awards} of the last scored hand
    ended: null, // GameEnded or GameAborted
    seed: null,
  };
  for (const event of events.slice(0, position)) step(t, event);
  return t;
}

function step(t, e) {
  switch (e.type) {
    case "GameCreated":
      t.dealer = e.first_dealer;
      t.target = e.rules?.target ?? 14;
      break;
    case "PlayerJoined":
    case "PlayerReplaced":
      t.bots[e.seat] = e.bot ?? null;
      t.names[e.seat] = displayName(e.name, e.bot, e.seat);
      break;
    case "Dealt":
      t.hands = e.hands.map((hand) => [...(hand || [])]);
      t.dealer = e.dealer;
      t.hand = e.hand;
      t.kicks = [];
      t.trump = null;
      t.trick = [];
      t.lastTrick = null;
      break;
    case "Revealed":
      t.kicks = [...t.kicks, e.card];
      if (e.points) t.scores = bump(t.scores, e.team, e.points);
      break;
    case "GaveOne":
      t.scores = bump(t.scores, e.team, e.points);
      break;
    case "TrumpSet":
      t.trump = e.suit;
      break;
    case "PackRun":
      t.hands = t.hands.map((hand, seat) => [...hand, ...(e.hands[seat] || [])]);
      break;
    case "CardPlayed":
      t.hands = t.hands.map((hand, seat) => (seat === e.seat ? hand.filter((c) => c !== e.card) : hand));
      t.trick = [...t.trick, { seat: e.seat, card: e.card }];
      break;
    case "TrickWon":
      t.lastTrick = { cards: t.trick, winner: e.seat };
      t.trick = [];
      break;
    case "HandScored":
      t.scores = [...e.scores];
      t.awards = { hand: t.hand, awards: e.awards };
      break;
    case "GameEnded":
      t.scores = [...e.scores];
      t.ended = e;
      break;
    case "GameAborted":
      t.ended = e;
      break;
    case "SeedRevealed":
      t.seed = e.seed;
      break;
    default:
      break;
  }
}

function bump(scores, team, points) {
  return scores.map((score, i) => (i === team ? score + points : score));
}

/** The positions "hand by hand" stepping stops at: the start, each hand's scoring, the end. */
export function handStops(events) {
  const stops = [0];
  events.forEach((event, i) => {
    if (event.type === "HandScored" || event.type === "GameEnded") stops.push(i + 1);
  });
  stops.push(events.length);
  return [...new Set(stops)].sort((a, b) => a - b);
}
