// GoodCritters' Loot cards as the events name them (by id): RULES.md R1.2, the deck's composition
// (games/rules/goodcritters/cards.py: ids 0..34 are $2,000, 35..69 $3,000, 70..104 $4,000, 105..139 $5,000;
// 140 is The Fuzz!). The views carry each card's value; only the events' bare ids need this.
export const FUZZ = 140;
const VALUES = [2000, 3000, 4000, 5000] as const;

export function cardValue(id: number): number | null {
  if (!Number.isInteger(id) || id < 0 || id >= FUZZ) return null;
  return VALUES[Math.floor(id / 35)] ?? null;
}

export function cardWords(id: number | null | undefined): string {
  if (id === null || id === undefined) return "a card";
  if (id === FUZZ) return "The Fuzz!";
  const v = cardValue(id);
  return v === null ? `card #${id}` : `$${v.toLocaleString("en-US")}`;
}

export const ACTION_WORDS: Record<string, string> = {
  guard: "Guard",
  rob: "Rob",
  skim: "Skim",
  vote_no: "Vote No",
  vote_yes: "Vote Yes",
};
export const ACTIONS = ["guard", "rob", "skim", "vote_no", "vote_yes"] as const;

export const STEP_WORDS: Record<string, string> = {
  setup: "Setting up",
  distribute: "Step 2: the Boss distributes the Loot",
  choose: "Step 3: choose Actions",
  resolve: "Step 4: resolving",
  over: "Game over",
};
