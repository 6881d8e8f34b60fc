// The only module that knows the server: its URLs, the seat tokens, fetch and EventSource.
// Everything it returns is plain data; a refusal becomes an ApiError carrying the problem's
// stable `code` and its `detail`, to be shown to the person as it is.

const JSON_TYPE = "application/json";

/** The event types a stream may carry (EventSource delivers named events only to listeners
 * registered by name). A type not listed here is skipped; the state then sees a gap in the
 * versions and reloads the view, so a newer server never leaves the page stale. */
const EVENT_TYPES = [
  "GameCreated", "PlayerJoined", "Dealt", "Revealed", "Stood", "Begged", "GaveOne", "PackRun",
  "TrumpSet", "Redealt", "CardPlayed", "TrickWon", "HandScored", "GameEnded", "SeedRevealed",
  "GameAborted", "TurnTimedOut", "SeatAway", "SeatBack", "PlayerLeft", "PlayerReplaced",
  "RematchCreated",
];

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "http_error";
    this.detail = problem.detail || problem.title || `The server answered ${status}.`;
    this.problem = problem;
  }
}

async function request(method, path, { body, token, headers = {} } = {}) {
  const init = { method, headers: { Accept: JSON_TYPE, ...headers }, cache: "no-store" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = JSON_TYPE;
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, { code: "network", detail: "The server cannot be reached." });
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data || {});
  return data;
}

const game = (id) => `/v1/games/${encodeURIComponent(id)}`;

export function listGames(status, limit = 20) {
  return request("GET", `/v1/games?status=${status}&limit=${limit}`);
}

/** Asks whether a table would accept `name` (204), before anything is created: a refusal
 * (400 `invalid_name`, its detail in words) leaves no table behind. */
export function checkName(name) {
  return request("POST", "/v1/names/check", { body: { name } });
}

/** Opens a table; a private one's answer carries its `invite` (the secret of its link). */
export function createGame({ rules, bots, isPrivate = false }) {
  return request("POST", "/v1/games", { body: isPrivate ? { rules, bots, private: true } : { rules, bots } });
}

/** Takes an open seat. `token` is a player key (the seat is then linked to the player) or an
 * old table's seat token when claiming a rematch seat; `invite` opens a private table. */
export function takeSeat(id, seat, name, token, invite) {
  return request("POST", `${game(id)}/seats/${seat}`, { body: invite ? { name, invite } : { name }, token });
}

/** A fresh seat token for a seat linked to the player (the old token stops working). */
export function reissueSeatToken(id, seat, key) {
  return request("POST", `${game(id)}/seats/${seat}/token`, { token: key });
}

/** A new player identity: `{player_id, name, key, created_at}`, the key shown this once. */
export function createPlayer(name) {
  return request("POST", "/v1/players", { body: { name } });
}

export function getMe(key) {
  return request("GET", "/v1/players/me", { token: key });
}

export function renameMe(key, name) {
  return request("PATCH", "/v1/players/me", { body: { name }, token: key });
}

/** The player's games, newest first: `{games, next_cursor}`. */
export function myGames(key, cursor = null, limit = 20) {
  const params = new URLSearchParams({ limit: String(limit) });
  if (cursor) params.set("cursor", cursor);
  return request("GET", `/v1/players/me/games?${params}`, { token: key });
}

export function getProfile(playerId) {
  return request("GET", `/v1/players/${encodeURIComponent(playerId)}`);
}

export function getLeaderboard(offset = 0, limit = 50) {
  return request("GET", `/v1/leaderboard?offset=${offset}&limit=${limit}`);
}

/** Joins the matchmaking queue: `partner` a player id or null, `botsAfter` seconds or null. */
export function joinQueue(key, { partner = null, botsAfter = null } = {}) {
  return request("POST", "/v1/matchmaking", { body: { partner, bots_after_s: botsAfter }, token: key });
}

/** The player's ticket; asking is also the heartbeat that keeps it in the queue. */
export function pollQueue(key) {
  return request("GET", "/v1/matchmaking", { token: key });
}

export function leaveQueue(key) {
  return request("DELETE", "/v1/matchmaking", { token: key });
}

/** `{waiting, playing}`: the people in the queue and at rated tables now. */
export function queueStats() {
  return request("GET", "/v1/matchmaking/stats");
}

/** Seats a bot: `token` is the table's creator token or the seat token of a person at it. */
export function addBot(id, seat, token, kind = "strong") {
  return request("POST", `${game(id)}/seats/${seat}/bot`, { body: { kind }, token });
}

export function getView(id, token) {
  return request("GET", game(id), { token });
}

/** Sends one command for `seat`. The Idempotency-Key makes a retried click harmless. */
export function sendCommand(id, seat, token, command) {
  return request("POST", `${game(id)}/seats/${seat}/commands`, {
    body: command,
    token,
    headers: { "Idempotency-Key": crypto.randomUUID() },
  });
}

/** The seat's hints: each legal action with the master bot's chance to win after it. */
export function getHints(id, seat, token) {
  return request("GET", `${game(id)}/seats/${seat}/hints`, { token });
}

export function requestRematch(id, token) {
  return request("POST", `${game(id)}/rematch`, { body: {}, token });
}

/** The game's events so far as `token`'s seat (or a spectator) may see them, page by page. */
export async function history(id, token) {
  const envelopes = [];
  let after = 0;
  for (;;) {
    const page = await request("GET", `${game(id)}/events?after=${after}&limit=1000`, { token });
    if (!page.events.length) return envelopes;
    envelopes.push(...page.events);
    after = page.next_after;
  }
}

/** A finished game's decisions beside the strong bot's (computed on the first ask). */
export function getAnalysis(id) {
  return request("GET", `${game(id)}/analysis`);
}

export function getReplay(id) {
  return request("GET", `${game(id)}/replay`);
}

/**
 * Follows a game's stream from `after`. `onMessage` receives `{kind: "event", version,
 * event}`, `{kind: "view", view}` or `{kind: "resync"}`; `onStatus` receives "live" or
 * "reconnecting". The browser resumes a dropped stream by itself with Last-Event-ID; when it
 * gives up (an error answer), this reconnects from the last id seen, backing off. Returns
 * `close()`.
 */
export function follow(id, { token, after = 0, onMessage, onStatus }) {
  let last = after;
  let source = null;
  let retryTimer = null;
  let delay = 500;
  let closed = false;

  const open = () => {
    // A view after every event: the page shows the game one move at a time (pace.js).
    const params = new URLSearchParams({ after: String(last), view_each: "true" });
    if (token) params.set("token", token);
    source = new EventSource(`${game(id)}/stream?${params}`);
    source.onopen = () => {
      delay = 500;
      onStatus("live");
    };
    source.onerror = () => {
      if (closed) return;
      onStatus("reconnecting");
      if (source.readyState === EventSource.CLOSED) retry();
    };
    const onEvent = (message) => {
      const version = Number(message.lastEventId);
      if (Number.isInteger(version) && version > last) last = version;
      onMessage({ kind: "event", version, event: JSON.parse(message.data) });
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
    source.addEventListener("view", (message) => {
      onMessage({ kind: "view", view: JSON.parse(message.data) });
    });
    source.addEventListener("resync", () => {
      // The server's log is behind what this page saw (a restored backup): start over.
      source.close();
      last = 0;
      onMessage({ kind: "resync" });
      retry();
    });
  };
  const retry = () => {
    source?.close();
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => !closed && open(), delay);
    delay = Math.min(delay * 2, 8000);
  };
  open();
  return () => {
    closed = true;
    clearTimeout(retryTimer);
    source?.close();
  };
}
