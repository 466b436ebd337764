// Were-cats' events in words (the table is open, WC4.2: nothing but the seed is hidden).
import type { FeedEvent, Schemas } from "../../api/types";
import { describeTableEvent, list, nameOf, plural } from "../common";

type WcEvent = Schemas["WereCatsEvent"];
type Coins = Schemas["WereCatsCoinsView"];

export const KINDS = ["penny", "nickel", "dime"] as const;
export type Kind = (typeof KINDS)[number];
const PLURAL: Record<string, string> = { penny: "pennies", nickel: "nickels", dime: "dimes" };

export function coinWords(n: number, kind: string): string {
  return `${n} ${n === 1 ? kind : (PLURAL[kind] ?? `${kind}s`)}`;
}

export function coinsWords(coins: Coins | null | undefined): string {
  if (!coins) return "nothing";
  const parts = KINDS.filter((k) => coins[k] > 0).map((k) => coinWords(coins[k], k));
  return list(parts) || "nothing";
}

export function describeWereCats(item: FeedEvent, names?: readonly string[]): string {
  const table = describeTableEvent(item.event, names);
  if (table !== null) return table;
  const who = (s: number | null | undefined) => nameOf(names, s);
  const e = item.event as WcEvent;
  switch (e.type) {
    case "GameStarted":
      return `The game started with ${plural(e.players?.length ?? 0, "player")}; ${who(e.first_seat)} chooses first.`;
    case "SeatResigned":
      return `${who(e.seat)} resigned.`;
    case "SetupTurnStarted":
      return `${who(e.seat)} chooses their starting coins.`;
    case "StartingCoinsTaken":
      return `${who(e.seat)} took two ${PLURAL[e.kind ?? ""] ?? e.kind}: a cat on slot ${e.slot} and a victim in hand${e.reason && e.reason !== "chosen" ? ` (${e.reason})` : ""}.`;
    case "RoundStarted":
      return `Round ${e.round} begins: everyone places victims.`;
    case "VictimsPlaced":
      return `${who(e.seat)} placed ${coinsWords(e.eat)} to eat and ${coinsWords(e.scare)} to scare.`;
    case "PlacingFinished":
      return `${who(e.seat)} is done placing${e.reason && e.reason !== "chosen" ? ` (${e.reason})` : ""}.`;
    case "QuarterTaken":
      return `${who(e.seat)} takes the quarter${e.reason === "first_done" ? " (first done)" : e.reason === "first_seat" ? " (first seat)" : ""}.`;
    case "PopulatingStarted":
      return `The city is populated, starting with ${who(e.first)}.`;
    case "PopulateTurnStarted":
      return `${who(e.seat)} moves a coin from the supply to the city.`;
    case "VillagerPlaced":
      return `${who(e.seat)} moved a ${e.kind} from the supply to the city${e.reason && e.reason !== "chosen" ? ` (${e.reason})` : ""}.`;
    case "CatTurnStarted":
      return `${who(e.seat)}'s cat on slot ${e.slot} acts.`;
    case "VictimsEaten":
      return `${who(e.seat)}'s cat on slot ${e.slot} ate ${coinsWords(e.coins)}: claw ${e.claw}.`;
    case "VictimTaken":
      return `${who(e.seat)}'s cat on slot ${e.slot} took a ${e.kind} from the city as a victim.`;
    case "CatMade":
      return `${who(e.seat)}'s cat on slot ${e.slot} made a new ${e.kind} cat on slot ${e.new_slot}.`;
    case "CityReturned":
      return `${who(e.seat)}'s cat on slot ${e.slot} sent ${coinsWords(e.coins)} back to the supply: the city is populated again.`;
    case "CatPassed":
      return `${who(e.seat)}'s cat on slot ${e.slot} passed${e.reason && e.reason !== "chosen" ? ` (${e.reason})` : ""}.`;
    case "RoundRefreshed":
      return `Round ${e.round} ends: the cats turn heads up.`;
    case "GameEnded": {
      const winners = (e.winners ?? []).filter((w): w is number => w !== null).map(who);
      return `The game is over after round ${e.round} (${e.reason}). ${winners.length ? `Won by ${list(winners)}.` : ""}`.trim();
    }
    default:
      return `${(e as { type: string }).type}`;
  }
}
