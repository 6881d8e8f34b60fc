// The seat tokens this browser holds, one per game, in localStorage: a reload or a second tab
// of the same table keeps the seat. Also the creator tokens of the tables it opened (they seat
// bots and close a table before its first card), and the name the person plays under.

const PREFIX = "allfours.seat.";
const CREATOR = "allfours.creator.";
const NAME = "allfours.name";

/** `{seat, token}` for `gameId`, or null when this browser holds no seat there. */
export function seatOf(gameId) {
  try {
    const held = JSON.parse(localStorage.getItem(PREFIX + gameId) || "null");
    return held && Number.isInteger(held.seat) && typeof held.token === "string" ? held : null;
  } catch {
    return null;
  }
}

export function keepSeat(gameId, seat, token) {
  localStorage.setItem(PREFIX + gameId, JSON.stringify({ seat, token }));
}

export function forgetSeat(gameId) {
  localStorage.removeItem(PREFIX + gameId);
}

/** The creator token of `gameId` if this browser opened that table, else null. */
export function creatorOf(gameId) {
  return localStorage.getItem(CREATOR + gameId);
}

export function keepCreator(gameId, token) {
  if (token) localStorage.setItem(CREATOR + gameId, token);
}

export function playerName() {
  return localStorage.getItem(NAME) || "";
}

export function keepName(name) {
  localStorage.setItem(NAME, name);
}
