// Events told as sentences, for the table's log and the screen reader's live region. Pure:
// the names of the seats come in, a sentence goes out.

import { cardName, suitName } from "./cards.js";

export const TEAM_NAMES = ["Team A", "Team B"];

const AWARD_NAMES = { high: "High", low: "Low", jack: "Jack", hang_jack: "Hang Jack", game: "Game" };

/** The final scores, the winner's first ("14–9"): a bare "9–14" after "Team B wins" reads
 * as if Team B had 9. The dash is followed by a word joiner: a line never breaks inside. */
export function scoreLine(scores, winner, sep = "\u2013\u2060") {
  return `${scores[winner]}${sep}${scores[1 - winner]}`;
}

/** A game in a list: "Team B won 14–9", or both teams', named, while nobody has won
 * ("A 3 · B 5"). */
export function resultLine(scores, winner) {
  return winner === null ? `A ${scores[0]} · B ${scores[1]}` : `${TEAM_NAMES[winner]} won ${scoreLine(scores, winner)}`;
}

/** A server's detail as a sentence: "A name may not hold …". */
export function sentence(text) {
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}` : text;
}

/** A finished game in a list: who won, or why nobody did (a table aborted before its first
 * card, or closed because nobody came): "A 0 · B 0" told neither. */
export function finishLine(game) {
  if (game.winner !== null) return `${resultLine(game.scores, game.winner)}${resignation(game, TEAM_NAMES[1 - game.winner])}`;
  if (game.end_reason === "aborted") return "Aborted before a card was played";
  if (game.end_reason === "expired") return "Closed: nobody came in time";
  if (game.end_reason === "idle") return "Closed: nobody played for a long while";
  return resultLine(game.scores, null);
}

/** A finished game in the list of a player who sat at it (`seat`): "You won 14–9" or "You
 * lost 9–14" (their team's score first), where "Team B won" left them to work out their team. */
export function yourFinishLine(game, seat) {
  if (seat === null || game.winner === null) return finishLine(game);
  const team = seat % 2;
  const resigned = resignation(game, game.winner === team ? "they" : "your team");
  return `${game.winner === team ? "You won" : "You lost"} ${scoreLine(game.scores, team)}${resigned}`;
}

/** Why a game that ended before its target has a winner with fewer points (", Team A
 * resigned"): "Team B won 0–0" alone read as a game won by nothing. */
function resignation(game, who) {
  return game.end_reason === "resigned" ? `, ${who} resigned` : "";
}

export function awardName(kind) {
  return AWARD_NAMES[kind] || kind;
}

/** What a seat is called at the table: its person's name, or "Bot 3" for a bot (the server
 * names every bot after its kind, which tells four seats apart badly). */
export function displayName(name, bot, seat) {
  return bot ? `Bot ${seat + 1}` : name;
}

/** The display names of a view's seats (null for an open seat). */
export function namesOf(view) {
  return view.seats.map((s) => displayName(s.name, s.bot, s.seat));
}

/** "Ann", "Seat 3" for a seat nobody named yet; `viewer`'s own seat is "You". */
export function seatLabel(names, seat, viewer) {
  if (seat === viewer && viewer !== null && viewer !== undefined) return "You";
  return names[seat] || `Seat ${seat + 1}`;
}

const s = (who, you, other) => (who === "You" ? you : other);

/** The sentence for one event, or null for an event not worth saying. */
export function narrate(event, names, viewer) {
  const who = seatLabel(names, event.seat, viewer);
  const team = TEAM_NAMES[event.team];
  switch (event.type) {
    case "GameCreated":
      return "The table is open.";
    case "PlayerJoined":
      return `${displayName(event.name, event.bot, event.seat) || who} sat down at seat ${event.seat + 1}.`;
    case "Dealt":
      return event.deal > 1
        ? `Redeal of hand ${event.hand} by ${seatLabel(names, event.dealer, viewer)}.`
        : `Hand ${event.hand}: ${seatLabel(names, event.dealer, viewer)} ${s(seatLabel(names, event.dealer, viewer), "deal", "deals")}.`;
    case "Revealed":
      return `Kick: ${cardName(event.card)}${event.points ? `, ${event.points} to ${team}` : ""}.`;
    case "Stood":
      return `${who} ${s(who, "stand", "stands")}.`;
    case "Begged":
      return `${who} ${s(who, "beg", "begs")}.`;
    case "GaveOne":
      return `${who} ${s(who, "give", "gives")} one: ${event.points} to ${team}.`;
    case "PackRun":
      return `${who} ${s(who, "run", "runs")} the pack.`;
    case "TrumpSet":
      return `Trump is ${suitName(event.suit)}.`;
    case "Redealt":
      return "The pack ran out of new suits: the hand is dealt again.";
    case "CardPlayed":
      return `${who} ${s(who, "play", "plays")} the ${cardName(event.card)}.`;
    case "TrickWon":
      return `${who} ${s(who, "win", "wins")} the trick.`;
    case "HandScored": {
      const awards = event.awards.map((a) => `${awardName(a.kind)} ${TEAM_NAMES[a.team]}`);
      return `Hand scored${awards.length ? `: ${awards.join(", ")}` : ""}. Score ${event.scores[0]} to ${event.scores[1]}.`;
    }
    case "GameEnded": {
      const why = event.reason === "resigned" ? ` (${TEAM_NAMES[1 - event.winner]} resigned)` : "";
      return `${TEAM_NAMES[event.winner]} wins the game, ${scoreLine(event.scores, event.winner, " to ")}${why}.`;
    }
    case "GameAborted":
      if (event.reason === "expired") return "The table closed: nobody came in time.";
      if (event.reason === "idle") return "The table closed: nobody played for a long while.";
      return event.seat === null || event.seat === undefined ? "The table was closed by its creator." : `The table was closed by ${who}.`;
    case "SeedRevealed":
      return "The seed is revealed: every deal can now be checked.";
    case "TurnTimedOut":
      return `${who} ran out of time: a bot moved for ${s(who, "you", "them")}.`;
    case "SeatAway":
      return `${who} ${s(who, "are", "is")} away: a bot plays for ${s(who, "you", "them")} while others play on.`;
    case "SeatBack":
      return `${who} ${s(who, "are", "is")} back.`;
    case "PlayerLeft":
      return `${who} left the table.`;
    case "PlayerReplaced":
      return event.seat === viewer ? `You took over seat ${event.seat + 1}.` : `${event.name} took over seat ${event.seat + 1}.`;
    case "RematchCreated":
      return "A rematch table is open.";
    default:
      return null;
  }
}
