// The book of a game's hands, folded from its events: for each hand, the points it scored in
// the order they were awarded (kicks and giving one as they happen, then High, Low, Jack or
// Hang Jack and Game at the hand's end, with the counts for Game) and the running score. The
// table's hand summary and score sheet and the replay's awards all read it. Pure.

import { cardName } from "./cards.js";
import { awardName } from "./narrate.js";

/** A book before any event. */
export function emptyBook() {
  return { hands: [], scores: [0, 0] };
}

function openHand(book, number) {
  return { number, points: [], gameCounts: null, scores: null, before: [...book.scores], scored: false };
}

function withCurrent(book, change) {
  const hands = book.hands.slice();
  const last = hands[hands.length - 1];
  hands[hands.length - 1] = change(last);
  return { ...book, hands };
}

function bump(scores, team, points) {
  return scores.map((score, i) => (i === team ? score + points : score));
}

/** The book after `event`. */
export function noteEvent(book, event) {
  switch (event.type) {
    case "Dealt": {
      const last = book.hands[book.hands.length - 1];
      if (last && last.number === event.hand) return book; // a redeal: the same hand goes on
      return { ...book, hands: [...book.hands, openHand(book, event.hand)] };
    }
    case "Revealed":
    case "GaveOne": {
      if (!event.points || !book.hands.length) return book;
      const kind = event.type === "Revealed" ? "kick" : "give_one";
      const point = { kind, team: event.team, points: event.points, card: event.card ?? null };
      const next = withCurrent(book, (hand) => ({ ...hand, points: [...hand.points, point] }));
      return { ...next, scores: bump(book.scores, event.team, event.points) };
    }
    case "HandScored": {
      if (!book.hands.length) return { ...book, scores: [...event.scores] };
      const awards = event.awards.map((a) => ({ kind: a.kind, team: a.team, points: a.points, card: a.card ?? null }));
      const next = withCurrent(book, (hand) => ({
        ...hand,
        points: [...hand.points, ...awards],
        gameCounts: event.game_counts,
        scores: [...event.scores],
        scored: true,
      }));
      return { ...next, scores: [...event.scores] };
    }
    case "GameEnded": {
      // A game won on a kick (or given one, or resigned) ends its hand unscored: the hand's
      // score is the game's last.
      const last = book.hands[book.hands.length - 1];
      if (!last || last.scored) return { ...book, scores: [...event.scores] };
      const next = withCurrent(book, (hand) => ({ ...hand, scores: [...event.scores] }));
      return { ...next, scores: [...event.scores] };
    }
    default:
      return book;
  }
}

/** The book of a whole log. */
export function bookOf(events) {
  return events.reduce(noteEvent, emptyBook());
}

const POINT_NAMES = { kick: "Kick", give_one: "Gave one" };

/** How one point reads: "High (ace of spades)", "Kick (jack of hearts)", "Gave one". */
export function pointLabel(point) {
  const name = POINT_NAMES[point.kind] || awardName(point.kind);
  return point.card ? `${name} (${cardName(point.card)})` : name;
}

/** Each team's points in `hand` (kicks and giving one included). */
export function handTotals(hand) {
  return hand.points.reduce((totals, p) => bump(totals, p.team, p.points), [0, 0]);
}
