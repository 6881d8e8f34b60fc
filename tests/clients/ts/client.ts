// A small client of the allfours API, written against the TypeScript types that
// openapi-typescript generates from openapi/openapi.json (./schema.d.ts, generated at test time
// next to this file) and called through openapi-fetch. The test type-checks it (tsc --noEmit):
// every path, parameter, body and answer below must be what the spec says.

import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Schemas = components["schemas"];
type Command = paths["/v1/games/{game_id}/seats/{seat}/commands"]["post"]["requestBody"]["content"]["application/json"];
type EventType = Schemas["EventEnvelope"]["event"]["type"];
type Client = ReturnType<typeof connect>;
/** One stream message's data, as the spec types streamEvents' answer: an event, a view or {}. */
type StreamData =
  paths["/v1/games/{game_id}/stream"]["get"]["responses"][200]["content"]["text/event-stream"];
// Written here, not taken from the generated types: the checks below hold the spec to them.
type Suit = "C" | "D" | "H" | "S";
type Card = `${"2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "T" | "J" | "Q" | "K" | "A"}${Suit}`;
const isView = (data: StreamData): data is Schemas["View"] => "legal_actions" in data;
// The answers as openapi-fetch types them (it reads the schemas' tuples as arrays).
type View = Awaited<ReturnType<Client["view"]>>;
type Replay = Awaited<ReturnType<Client["replay"]>>;

export interface Table {
  gameId: string;
  seat: number;
  token: string;
}

export function connect(baseUrl: string) {
  const api = createClient<paths>({ baseUrl });
  const auth = (table: Table) => ({ Authorization: `Bearer ${table.token}` });

  /** Create a table with three bots and take the free seat. */
  async function sitDown(name: string): Promise<Table> {
    const created = await api.POST("/v1/games", {
      body: { bots: [null, "heuristic", "heuristic", "heuristic"], rules: { turn_seconds: null } },
    });
    if (!created.data) throw new Error(`create: ${created.error?.code}`);
    const gameId = created.data.game_id;
    const seated = await api.POST("/v1/games/{game_id}/seats/{seat}", {
      params: { path: { game_id: gameId, seat: 0 } },
      body: { name },
    });
    if (!seated.data) throw new Error(`take seat: ${seated.error?.code} ${seated.error?.detail ?? ""}`);
    return { gameId, seat: seated.data.seat, token: seated.data.token };
  }

  /** The seat's view (its hand, legal actions, deadline). */
  async function view(table: Table) {
    const answer = await api.GET("/v1/games/{game_id}", {
      params: { path: { game_id: table.gameId } },
      headers: auth(table),
    });
    if (!answer.data) throw new Error(`view: ${answer.error?.code}`);
    return answer.data;
  }

  /** Send one of the view's legal actions; the answer holds the next view. */
  async function act(table: Table, current: View): Promise<View> {
    const action = current.legal_actions[0];
    if (action === undefined) throw new Error("nothing to do");
    // A legal action goes back as the command as it is: the view types a play's card as one
    // of the 52 codes, as the command does.
    const body: Command = action;
    const answer = await api.POST("/v1/games/{game_id}/seats/{seat}/commands", {
      params: {
        path: { game_id: table.gameId, seat: table.seat },
        header: { "Idempotency-Key": `${table.gameId}-${current.version}` },
      },
      headers: auth(table),
      body,
    });
    if (!answer.data) throw new Error(`command: ${answer.error?.code} ${answer.error?.detail ?? ""}`);
    const stored: EventType[] = answer.data.events.map((envelope) => envelope.event.type);
    console.log(`version ${answer.data.version}: ${stored.join(", ")}`);
    return answer.data.view;
  }

  /** The events after a version, as the seat may see them. */
  async function events(table: Table, after: number) {
    const page = await api.GET("/v1/games/{game_id}/events", {
      params: { path: { game_id: table.gameId }, query: { after, limit: 200 } },
      headers: auth(table),
    });
    if (!page.data) throw new Error(`events: ${page.error?.code}`);
    return page.data.events.map((envelope) => envelope.event);
  }

  /** Follow the game live with view snapshots (`view=true`): `onView` gets the seat's view
   *  after each batch of events; resolves once the seed is revealed (the game's last event). */
  function follow(table: Table, onView: (view: Schemas["View"]) => void): Promise<void> {
    const path: keyof paths = "/v1/games/{game_id}/stream";
    const query = `token=${encodeURIComponent(table.token)}&view=true`;
    const source = new EventSource(`${baseUrl}${path.replace("{game_id}", table.gameId)}?${query}`);
    return new Promise((resolve) => {
      source.addEventListener("view", (message) => {
        const data: StreamData = JSON.parse(message.data);
        if (isView(data)) onView(data);
      });
      const shown: EventType[] = ["Dealt", "TrumpSet", "HandScored", "GameEnded"];
      for (const type of shown) {
        source.addEventListener(type, (message) => console.log(`${message.lastEventId}: ${type}`));
      }
      source.addEventListener("SeedRevealed", (message) => {
        const event: Schemas["SeedRevealed"] = JSON.parse(message.data);
        console.log(`seed ${event.seed}`);
        source.close();
        resolve();
      });
    });
  }

  /** The finished game's full log and seed. */
  async function replay(gameId: string) {
    const answer = await api.GET("/v1/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
    if (!answer.data) throw new Error(`replay: ${answer.error?.code}`);
    return answer.data;
  }

  return { sitDown, view, act, events, follow, replay };
}

/** Play one game to the end from one stream and one POST per decision: act while the view
 *  says it is this seat's turn (a command's answer holds the next view), otherwise wait for
 *  the stream's next view. */
export async function playOneGame(baseUrl: string): Promise<Replay> {
  const client = connect(baseUrl);
  const table = await client.sitDown("typescript");
  let current: View = await client.view(table);
  let newest: View = current;
  let wake: () => void = () => {};
  const ended = client.follow(table, (view) => {
    if (view.version > newest.version) newest = view;
    wake();
  });
  while (current.phase !== "ended") {
    if (current.to_act === table.seat) {
      current = await client.act(table, current);
      continue;
    }
    const known = current.version;
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (newest.version > known) resolve();
    });
    current = newest;
  }
  await ended;
  const all = await client.events(table, 0);
  console.log(`${all.length} events, winner team ${current.winner ?? "none"}`);
  return client.replay(table.gameId);
}

// Strict types: these compile only while the spec says what the server always sends. A card
// is one of the 52 codes (never any string), a suit one of four letters, and a response's
// fields are all present (no `undefined` to check): loosen either in the spec and tsc fails.

/** What a seat can see at a glance, straight from its view. */
export function glance(view: View): { hand: Card[]; kicks: Card[]; trump: Suit | null; target: number; turn: number | null } {
  return { hand: view.hand ?? [], kicks: view.kicks, trump: view.trump, target: view.rules.target, turn: view.to_act };
}

/** The trump a stream message sets, if it sets one. */
export function trumpSet(data: StreamData): Suit | null {
  return "type" in data && data.type === "TrumpSet" ? data.suit : null;
}

/** The cards a stream message shows, told apart by the events' discriminator (`type`). */
export function cardsShown(data: StreamData): Card[] {
  if (!("type" in data)) return []; // a view, or the resync's {}
  switch (data.type) {
    case "CardPlayed":
    case "Revealed":
      return [data.card];
    case "TrickWon":
      return data.cards;
    case "Dealt":
    case "PackRun":
      return data.hands.flatMap((hand) => hand ?? []);
    default:
      return [];
  }
}
