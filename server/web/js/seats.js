// The seat tokens this browser holds, one per game, in localStorage: a reload or a second tab
// of the same table keeps the seat. Also the creator tokens of the tables it opened (they seat
// bots and close a table before its first card), and the person's own choices: the name they
// play under, the pace they watch bots at, and the invitations of private tables.

const PREFIX = "allfours.seat.";
const CREATOR = "allfours.creator.";
const NAME = "allfours.name";
const SPEED = "allfours.speed";

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

/** The pace chosen for bots' moves (a key of pace.js's SPEEDS), "normal" by default. */
export function chosenSpeed() {
  return localStorage.getItem(SPEED) || "normal";
}

export function keepSpeed(speed) {
  localStorage.setItem(SPEED, speed);
}

const INVITE = "allfours.invite.";

/** The invitation of a private table this browser opened or was invited to, else null. */
export function inviteOf(gameId) {
  return localStorage.getItem(INVITE + gameId);
}

export function keepInvite(gameId, invite) {
  if (invite) localStorage.setItem(INVITE + gameId, invite);
}
