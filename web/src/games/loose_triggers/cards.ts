// Loose Triggers' cards as the events name them (by number): RULES-loose-triggers.md LT1.5 (Loot: ids 0..35
// cash, 8 × $500, 8 × $1,000, 8 × $1,500, 6 × $2,000, 4 × $3,000, 2 × $5,000; 36..55 four relic sets of five)
// and LT1.6 (Action cards 1..40), as games/rules/loose_triggers/cards.py defines them. The views carry each
// card's kind and value; only the events' bare numbers need this.
const CASH_COUNTS: ReadonlyArray<readonly [number, number]> = [
  [500, 8],
  [1000, 8],
  [1500, 8],
  [2000, 6],
  [3000, 4],
  [5000, 2],
];
const CASH: number[] = CASH_COUNTS.flatMap(([value, count]) => Array.from({ length: count }, () => value));
export const RELICS = ["Jewel of Shanghai", "Golden Idol", "Ming Vase", "Fabergé Egg"] as const;

export function lootWords(card: number | null | undefined): string {
  if (card === null || card === undefined) return "a Loot card";
  if (card < CASH.length) return `$${(CASH[card] ?? 0).toLocaleString("en-US")}`;
  return RELICS[Math.floor((card - CASH.length) / 5)] ?? `Loot card #${card}`;
}

const RANGES: ReadonlyArray<readonly [string, number, number]> = [
  ["BANG!", 1, 12],
  ["GRAB!", 13, 20],
  ["DUCK!", 21, 30],
  ["CROSSFIRE!", 31, 35],
  ["IN THE FIRE!", 36, 40],
];

export function actionKind(card: number | null | undefined): string {
  if (card === null || card === undefined) return "a card";
  const hit = RANGES.find(([, lo, hi]) => card >= lo && card <= hi);
  return hit ? hit[0] : `card ${card}`;
}

export function actionWords(card: number | null | undefined): string {
  if (card === null || card === undefined) return "an Action card";
  return `${actionKind(card)} ${card}`;
}

export const STEP_WORDS: Record<string, string> = {
  aim: "Aim window: anyone may aim before the Bagman gives",
  give: "The Bagman gives the Loot",
  countdown: "Discussion: the Countdown runs",
  choose: "Discussion: Gunners choose a card",
  pick: "A Gunner picks Loot from a Sitting Duck",
  claim: "A Gunner may claim the Bagman's spoils",
  grab: "GRAB!: taking three cards",
  elect: "Electing a new Bagman",
};
