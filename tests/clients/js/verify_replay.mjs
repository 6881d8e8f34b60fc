// A replay verifier written from docs/REPLAY_VERIFICATION.md alone, with Node.js's built-in
// crypto and nothing else: it is the proof that the recipe is enough to verify a game in
// another language (the Python tests run it; it shares no code with the server).
//
//   node verify_replay.mjs --vectors replay-vectors.json   checks every test vector (and the
//                                                          replay inside the file)
//   node verify_replay.mjs --replay game.json …            verifies replay files
//
// Prints one line per check ("ok …" or "FAIL …") and exits 1 if any check failed.

import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";

const RANKS = "23456789TJQKA";
const SUITS = "CDHS";
const CARD_ORDER = [...SUITS].flatMap((suit) => [...RANKS].map((rank) => rank + suit));
const TWO_TO_32 = 2 ** 32;

// --- step 1: the commitment ------------------------------------------------------------------

function seedBytes(seed) {
  if (!/^[0-9a-fA-F]{64}$/.test(seed)) throw new Error(`the seed is not 64 hex digits: ${seed}`);
  return Buffer.from(seed, "hex");
}

export function commitment(seed) {
  return createHash("sha256").update(seedBytes(seed)).digest("hex");
}

// --- step 2: the random words ----------------------------------------------------------------

export function* words(seed, label) {
  const key = seedBytes(seed);
  for (let counter = 0; ; counter++) {
    const block = createHmac("sha256", key).update(`${label}:${counter}`, "ascii").digest();
    for (let i = 0; i < 32; i += 4) yield block.readUInt32BE(i);
  }
}

export function below(stream, n) {
  const limit = TWO_TO_32 - (TWO_TO_32 % n);
  for (;;) {
    const { value: w, done } = stream.next();
    if (done) throw new Error("ran out of words");
    if (w < limit) return w % n;
  }
}

// --- step 3: the first dealer and the decks --------------------------------------------------

export function firstDealer(seed) {
  return below(words(seed, "dealer"), 4);
}

export function shuffleDraws(seed, hand, deal) {
  const stream = words(seed, `deck:${hand}:${deal}`);
  const draws = [];
  for (let i = 51; i >= 1; i--) draws.push(below(stream, i + 1));
  return draws;
}

export function deck(seed, hand, deal) {
  const cards = [...CARD_ORDER];
  const draws = shuffleDraws(seed, hand, deal);
  for (let i = 51, k = 0; i >= 1; i--, k++) {
    const j = draws[k];
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

// --- step 4: where every card goes -----------------------------------------------------------

function bySeat(cards, each, dealer) {
  const hands = [null, null, null, null];
  for (let k = 0; k < 4; k++) hands[(dealer + 1 + k) % 4] = cards.slice(each * k, each * (k + 1));
  return hands;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const suitOf = (card) => card[1];

function kickPoints(card, tobagoKick) {
  const rank = card[0];
  if (rank === "A") return 1;
  if (rank === "J") return 3;
  if (rank === (tobagoKick ? "2" : "6")) return 2;
  return 0;
}

/** The problems found in one replay file (an empty list: it verifies). */
export function verifyReplay(replay) {
  const problems = [];
  const events = replay.events.map((envelope) => envelope.event);
  if (replay.format !== "allfours-replay") problems.push(`unknown format ${replay.format}`);
  replay.events.forEach((envelope, i) => {
    if (envelope.version !== i + 1) problems.push(`event ${i + 1} has version ${envelope.version}`);
  });
  const created = events[0];
  if (!created || created.type !== "GameCreated") return ["the log does not start with GameCreated"];
  const last = events.length - 1;
  const revealedAt = events[last]?.type === "SeedRevealed" ? last
    : events[last]?.type === "RematchCreated" && events[last - 1]?.type === "SeedRevealed" ? last - 1
    : -1;
  if (revealedAt < 0) return ["the log does not end with SeedRevealed"];
  if (events.filter((event) => event.type === "SeedRevealed").length > 1) {
    return ["the seed is revealed more than once"];
  }
  const seed = events[revealedAt].seed;
  if (seed !== replay.seed) problems.push("the file's seed is not the one revealed");
  if (created.seed_commitment !== replay.seed_commitment) {
    problems.push("the file's commitment is not the game's");
  }
  let committed;
  try {
    committed = commitment(seed);
  } catch (error) {
    return [...problems, error.message];
  }
  if (committed !== created.seed_commitment) {
    return [...problems, "the seed does not match the commitment"];
  }
  if (firstDealer(seed) !== created.first_dealer) {
    problems.push("the first dealer is not the one the seed gives");
  }

  const tobago = Boolean(created.rules?.tobago_kick);
  let hand = 1;
  let deal = 1;
  let dealer = created.first_dealer;
  let cards = null; // the current deck
  let p = 0;
  let firstKickSuit = null;
  let afterRunKick = false; // the previous event was the kick of a run
  events.forEach((event, index) => {
    const at = `event ${index + 1} (${event.type})`;
    if (afterRunKick) {
      afterRunKick = false;
      const kick = cards[p - 1];
      const ended = event.type === "GameEnded";
      if (suitOf(kick) !== firstKickSuit) {
        if (!ended && !(event.type === "TrumpSet" && event.suit === suitOf(kick))) {
          problems.push(`${at}: a run's kick of a new suit must set trump`);
        }
      } else if (p + 13 > 52) {
        if (!ended && event.type !== "Redealt") problems.push(`${at}: the exhausted pack must be redealt`);
      } else if (!ended && event.type !== "PackRun") {
        problems.push(`${at}: a kick of the same suit must be followed by another run`);
      }
    }
    switch (event.type) {
      case "HandScored":
        hand += 1;
        deal = 1;
        dealer = (dealer + 1) % 4;
        break;
      case "Redealt":
        deal += 1;
        if (event.dealer !== dealer) problems.push(`${at}: redealt by seat ${event.dealer}, not the dealer`);
        break;
      case "Dealt": {
        if (event.hand !== hand || event.deal !== deal || event.dealer !== dealer) {
          problems.push(`${at}: deal ${event.hand}.${event.deal} by ${event.dealer}, expected ${hand}.${deal} by ${dealer}`);
        }
        cards = deck(seed, hand, deal);
        if (!same(event.hands, bySeat(cards.slice(0, 24), 6, dealer))) {
          problems.push(`${at}: the hands are not the ones the seed deals`);
        }
        if (!same(event.stock, cards.slice(24))) problems.push(`${at}: the stock is not the seed's`);
        p = 24;
        firstKickSuit = null;
        break;
      }
      case "Revealed": {
        if (cards === null || event.card !== cards[p]) {
          problems.push(`${at}: ${event.card} is not the next card of the pack`);
        } else {
          if (event.points !== kickPoints(event.card, tobago) || event.team !== dealer % 2) {
            problems.push(`${at}: the kick scores ${event.points} for team ${event.team}`);
          }
          if (firstKickSuit === null) firstKickSuit = suitOf(event.card);
          else afterRunKick = true;
        }
        p += 1;
        break;
      }
      case "PackRun": {
        if (event.seat !== dealer) problems.push(`${at}: the pack was run by seat ${event.seat}`);
        if (cards === null || !same(event.hands, bySeat(cards.slice(p, p + 12), 3, dealer))) {
          problems.push(`${at}: the cards dealt running the pack are not the next ones`);
        }
        p += 12;
        const next = events[index + 1];
        if (!next || next.type !== "Revealed") problems.push(`${at}: a run is followed by its kick`);
        break;
      }
      default:
        break; // moves no card from the pack
    }
  });
  return problems;
}

// --- the test vectors ------------------------------------------------------------------------

function* vectorChecks(vectors) {
  yield ["card order", same(vectors.card_order, CARD_ORDER)];
  for (const example of vectors.below_examples) {
    const stream = example.words[Symbol.iterator]();
    let read = 0;
    const counting = { next: () => { read += 1; return stream.next(); } };
    const result = below(counting, example.n);
    yield [`below(${example.n}) over ${example.words}`, result === example.result && read === example.words.length];
  }
  for (const vector of vectors.seeds) {
    const { seed } = vector;
    const name = seed.slice(0, 8);
    yield [`${name} commitment`, commitment(seed) === vector.commitment];
    const dealerWords = words(seed, "dealer");
    yield [`${name} dealer words`, same(vector.dealer_words.map(() => dealerWords.next().value), vector.dealer_words)];
    yield [`${name} first dealer`, firstDealer(seed) === vector.first_dealer];
    for (const d of vector.deals) {
      const at = `${name} deck ${d.hand}:${d.deal}`;
      const label = `deck:${d.hand}:${d.deal}`;
      const stream = words(seed, label);
      yield [`${at} label`, d.label === label];
      yield [`${at} words`, same(d.words.map(() => stream.next().value), d.words)];
      yield [`${at} draws`, same(shuffleDraws(seed, d.hand, d.deal), d.draws)];
      const cards = deck(seed, d.hand, d.deal);
      yield [`${at} deck`, same(cards, d.deck)];
      yield [`${at} dealer`, d.dealer === (vector.first_dealer + d.hand - 1) % 4];
      yield [`${at} hands`, same(bySeat(cards.slice(0, 24), 6, d.dealer), d.hands)];
      yield [`${at} kick`, cards[24] === d.kick];
      yield [`${at} runs`, same(
        [25, 38].map((start) => ({ hands: bySeat(cards.slice(start, start + 12), 3, d.dealer), kick: cards[start + 12] })),
        d.runs,
      )];
    }
  }
  const problems = verifyReplay(vectors.replay);
  yield [`replay ${vectors.replay.game_id}${problems.length ? ": " + problems.join("; ") : ""}`, problems.length === 0];
  for (const c of vectors.cases ?? []) {
    const found = verifyReplay(c.replay);
    yield [`case ${c.name}: ${c.fair ? "fair" : "refused"}${found.length ? " (" + found.join("; ") + ")" : ""}`, (found.length === 0) === c.fair];
  }
}

// --- command line ----------------------------------------------------------------------------

function main(argv) {
  let failed = 0;
  let passed = 0;
  const report = (name, ok) => {
    console.log(`${ok ? "ok" : "FAIL"} ${name}`);
    if (ok) passed += 1;
    else failed += 1;
  };
  let mode = null;
  for (const arg of argv) {
    if (arg === "--vectors" || arg === "--replay") {
      mode = arg;
      continue;
    }
    const document = JSON.parse(readFileSync(arg, "utf8"));
    if (mode === "--vectors") {
      for (const [name, ok] of vectorChecks(document)) report(name, ok);
    } else if (mode === "--replay") {
      const problems = verifyReplay(document);
      report(`replay ${arg}${problems.length ? ": " + problems.join("; ") : ""}`, problems.length === 0);
    } else {
      throw new Error("usage: verify_replay.mjs --vectors FILE… | --replay FILE…");
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed || passed === 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
