// Who this browser's person is across games: a player identity made silently on the first
// visit (no password: a secret key, kept in localStorage), its recovery code (the key itself,
// to be copied to another device and imported there) and its name. Anonymous play goes on
// when the identity cannot be made (an old server, the address's hourly quota): every caller
// takes a null key to mean "play without one".

import * as api from "./api.js";
import { playerName } from "./seats.js";

const PLAYER = "allfours.player";
/** A recovery code is a player key: `<player id>.player.<secret>`. */
const CODE = /^p[0-9a-f]{16}\.player\.[A-Za-z0-9_-]+$/;

let making = null; // the creation in flight: two callers share one identity

/** `{player_id, key, name, named}` or null; `named` once the person chose the name. */
export function identity() {
  try {
    const held = JSON.parse(localStorage.getItem(PLAYER) || "null");
    return held && typeof held.key === "string" && typeof held.player_id === "string" ? held : null;
  } catch {
    return null;
  }
}

function keep(held) {
  localStorage.setItem(PLAYER, JSON.stringify(held));
  return held;
}

/** The identity, made first if this browser has none; null when the server would not make
 * one (then the page plays anonymously, as before identities). */
export async function ensureIdentity() {
  const held = identity();
  if (held) return held;
  making ??= makeIdentity(playerName());
  return making;
}

/** Makes the identity under `chosen`, the person's name if they gave one yet, else a made-up
 * one. `named` says which was sent, not whether a name exists by the answer: a name typed
 * while the identity was in the making is still to be adopted (`adoptName`). */
function makeIdentity(chosen) {
  return api
    .createPlayer(chosen || `Player ${Math.floor(1000 + Math.random() * 9000)}`)
    .then((made) => keep({ player_id: made.player_id, key: made.key, name: made.name, named: Boolean(chosen) }))
    .catch(() => null)
    .finally(() => {
      making = null;
    });
}

/** The player key to send with a seat (null: anonymous). */
export async function playerKey() {
  return (await ensureIdentity())?.key ?? null;
}

/** Whether `text` has the shape of a recovery code (the server still has the last word). */
export function looksLikeCode(text) {
  return CODE.test(text.trim());
}

/** Signs this browser in as the code's player (asked of the server first); the identity. */
export async function importCode(text) {
  const key = text.trim();
  const me = await api.getMe(key); // an ApiError (401) for a code the server does not know
  return keep({ player_id: me.player_id, key, name: me.name, named: true });
}

/** Renames the player (the server's refusal, in words, is thrown as it is). */
export async function rename(name) {
  const held = await ensureIdentity();
  if (!held) throw new Error("There is no player identity to rename.");
  const me = await api.renameMe(held.key, name);
  return keep({ ...held, name: me.name, named: true });
}

/** The first name the person types at a table becomes the player's, quietly (best effort:
 * a refusal leaves the made-up name). */
export async function adoptName(name) {
  const held = await ensureIdentity(); // it may still be in the making since the page opened
  if (!held || held.named || !name) return;
  try {
    await rename(name);
  } catch {
    // The seat's own check tells the person what is wrong with the name.
  }
}

/** Runs `call(key)` with the player key, so what it does is linked to the player; once more
 * without a key if the server no longer knows the key (401: a server restored without its
 * players), since anonymous play works, and the key is forgotten for a fresh identity. */
export async function withKey(call) {
  const key = await playerKey();
  try {
    return await call(key);
  } catch (error) {
    if (!key || error.status !== 401) throw error;
    localStorage.removeItem(PLAYER); // this server knows that key no more: a new one next time
    return call(null);
  }
}
