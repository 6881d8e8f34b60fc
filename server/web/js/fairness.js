// Checks a finished game's deals in the browser, with WebCrypto, exactly as the server's
// domain/seeds.py derives them: the seed must hash (SHA-256) to the commitment published at
// creation, and every deck, the first dealer and every card turned up or dealt by running the
// pack must be what the seed gives. Nothing here trusts the server beyond the log itself.

const CODES = [..."CDHS"].flatMap((suit) => [..."23456789TJQKA"].map((rank) => rank + suit));
const WORD = 2 ** 32;
const text = new TextEncoder();

function bytesOf(hex) {
  if (!/^([0-9a-f]{2})+$/i.test(hex)) throw new Error("the seed is not hex");
  return new Uint8Array(hex.match(/../g).map((byte) => parseInt(byte, 16)));
}

async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The 32-bit big-endian words of HMAC-SHA256(seed, `${label}:${i}`) for i = 0, 1, … */
function words(key, label) {
  let block = null;
  let at = 8;
  let counter = 0;
  return async () => {
    if (at === 8) {
      const mac = await crypto.subtle.sign("HMAC", key, text.encode(`${label}:${counter++}`));
      block = new DataView(mac);
      at = 0;
    }
    return block.getUint32(4 * at++, false);
  };
}

/** The next word under 2^32 - 2^32 mod n (others are skipped), modulo n. */
async function below(next, n) {
  const limit = WORD - (WORD % n);
  for (;;) {
    const word = await next();
    if (word < limit) return word % n;
  }
}

export async function deriveDeck(key, hand, deal) {
  const next = words(key, `deck:${hand}:${deal}`);
  const deck = [...CODES];
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await below(next, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The pack as it came off: each hand from the dealer's right round to the dealer, then the
 * stock (all there only in a replay's unredacted events). */
function packOrder(dealt) {
  const order = [];
  for (let k = 1; k <= 4; k++) order.push(...(dealt.hands[(dealt.dealer + k) & 3] || []));
  order.push(...(dealt.stock || []));
  return order;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Verifies a replay's events (their `event` objects, in order). Returns {ok, seed,
 * commitment, commitmentOk, dealerOk, deals: [{hand, deal, ok}], problems}.
 */
export async function verifyDeals(events) {
  const problems = [];
  const created = events[0];
  const revealed = events.find((e) => e.type === "SeedRevealed");
  const result = { ok: false, seed: revealed?.seed ?? null, commitment: created?.seed_commitment ?? null, commitmentOk: false, dealerOk: false, deals: [], problems };
  if (created?.type !== "GameCreated") return { ...result, problems: ["the log does not start with GameCreated"] };
  if (!revealed) return { ...result, problems: ["the seed was never revealed: the game is not over"] };
  let seed;
  try {
    seed = bytesOf(revealed.seed);
  } catch (error) {
    return { ...result, problems: [error.message] };
  }
  result.commitmentOk = (await sha256Hex(seed)) === created.seed_commitment;
  if (!result.commitmentOk) return { ...result, problems: ["the seed does not match the commitment"] };
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  result.dealerOk = (await below(words(key, "dealer"), 4)) === created.first_dealer;
  if (!result.dealerOk) problems.push("the first dealer is not the one the seed gives");

  let deck = [];
  let position = 0;
  let hand = 1;
  let deal = 1;
  let dealer = created.first_dealer;
  for (const [index, event] of events.entries()) {
    const where = `event ${index + 1}`;
    if (event.type === "HandScored") {
      hand += 1;
      deal = 1;
      dealer = (dealer + 1) % 4;
    } else if (event.type === "Redealt") {
      deal += 1;
    }
    if (event.type === "Dealt") {
      if (event.hand !== hand || event.deal !== deal || event.dealer !== dealer) {
        problems.push(`${where}: deal ${event.hand}.${event.deal} where the game was at deal ${hand}.${deal}`);
      }
      deck = packOrder(event);
      position = 24;
      const ok = same(deck, await deriveDeck(key, event.hand, event.deal));
      result.deals.push({ hand: event.hand, deal: event.deal, ok });
      if (!ok) problems.push(`${where}: deal ${event.hand}.${event.deal} is not the seed's`);
    } else if (event.type === "Revealed") {
      if (deck[position] !== event.card) problems.push(`${where}: the turned-up card is not the next one`);
      position += 1;
    } else if (event.type === "PackRun") {
      if (event.seat !== dealer) problems.push(`${where}: the pack was run by another seat`);
      for (let k = 0; k < 4; k++) {
        const expected = deck.slice(position + 3 * k, position + 3 * k + 3);
        if (!same(event.hands[(dealer + 1 + k) & 3] || [], expected)) {
          problems.push(`${where}: the cards dealt running the pack differ`);
          break;
        }
      }
      position += 12;
    }
  }
  return { ...result, ok: problems.length === 0 };
}
