// Card codes as people read them: "TC" is the ten of clubs, shown as "10♣". Naming only: no
// rule of the game lives here (which card may be played is the server's `legal_actions`).

const RANK_NAMES = {
  2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
  T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};

export const SUITS = {
  C: { name: "clubs", symbol: "♣", red: false },
  D: { name: "diamonds", symbol: "♦", red: true },
  H: { name: "hearts", symbol: "♥", red: true },
  S: { name: "spades", symbol: "♠", red: false },
};

/** "ten of clubs" */
export function cardName(code) {
  return `${RANK_NAMES[code[0]]} of ${SUITS[code[1]].name}`;
}

/** "10", "J", "7": what the corner of the card shows. */
export function rankLabel(code) {
  return code[0] === "T" ? "10" : code[0];
}

export function suitOf(code) {
  return SUITS[code[1]];
}

export function suitName(letter) {
  return SUITS[letter]?.name ?? letter;
}

const SUIT_ORDER = "CDHS";
const RANK_ORDER = "23456789TJQKA";

/** Cards in the order the server sorts a hand (by suit, clubs first, then by rank), so the
 * replay shows a hand as the table does. */
export function sortHand(codes) {
  const key = (code) => SUIT_ORDER.indexOf(code[1]) * 13 + RANK_ORDER.indexOf(code[0]);
  return [...codes].sort((a, b) => key(a) - key(b));
}
