// Loose Triggers' events in words, from the event as the viewer received it (LT7.2: a hidden field is null
// and is never guessed).
import type { FeedEvent, Schemas } from "../../api/types";
import { describeTableEvent, list, nameOf, plural } from "../common";
import { actionWords, lootWords } from "./cards";

type LtEvent = Schemas["LooseTriggersEvent"];

type GrabbedFrom = NonNullable<Extract<LtEvent, { type: "CardGrabbed" }>["source"]>;

/** Where a CardGrabbed event's card came from, as the spec's enum names the places (LT4.2). */
const SOURCE_WORDS: Record<GrabbedFrom, string> = {
  loot: "the Loot deck",
  display: "the display",
  action: "the Action deck",
  discard: "the discard pile",
};

export function describeLooseTriggers(item: FeedEvent, names?: readonly string[]): string {
  const table = describeTableEvent(item.event, names);
  if (table !== null) return table;
  const who = (s: number | null | undefined) => nameOf(names, s);
  const e = item.event as LtEvent;
  switch (e.type) {
    case "GameStarted":
      return `The game started with ${plural(e.players?.length ?? 0, "player")}; ${who(e.bagman)} is the Bagman.`;
    case "SeatResigned":
      return `${who(e.seat)} resigned.`;
    case "StepOpened":
      switch (e.step) {
        case "aim":
          return "A moment to shoot: anyone may aim before the next card is given.";
        case "give":
          return "The Bagman gives the next card.";
        case "countdown":
          return "The Countdown runs.";
        case "choose":
          return "The Discussion locks: every Gunner chooses a card.";
        case "pick":
          return `${who(e.seat)} picks a Loot card from ${who(e.target)}.`;
        case "claim":
          return `${who(e.seat)} may take the Bagman's spoils.`;
        case "grab":
          return `${who(e.seat)} grabs three cards.`;
        case "elect":
          return "The living vote for a new Bagman.";
        default:
          return `Step: ${e.step}.`;
      }
    case "LootDisplayed": {
      const shown = (e.cards ?? []).map((c, k) => (e.face_down?.[k] ? (c === null ? "a face-down card" : `${lootWords(c)} (face down)`) : lootWords(c)));
      return `${who(e.bagman)} displayed ${list(shown) || "nothing"}.`;
    }
    case "LootGiven":
      return `${who(e.bagman)} gave ${e.face_down ? (e.card === null ? "a face-down card" : `${lootWords(e.card)} (face down)`) : lootWords(e.card)} to ${who(e.to)}.`;
    case "Aimed":
      return e.how === "retarget"
        ? `${who(e.seat)} turned their gun on ${who(e.target)}.`
        : e.how === "open"
          ? `${who(e.seat)} aimed at ${who(e.target)}: a Discussion opens.`
          : `${who(e.seat)} joined, aiming at ${who(e.target)}.`;
    case "CountdownEnded":
      return "The Countdown reached 0.";
    case "ActionChosen":
      return e.card === null ? `${who(e.seat)} chose a card, face down.` : `${who(e.seat)} chose ${actionWords(e.card)}.`;
    case "ActionsRevealed": {
      const shown = (e.cards ?? []).map((c, seat) => (c === null ? null : `${who(seat)} ${actionWords(c)}`)).filter((x): x is string => x !== null);
      return `Cards revealed: ${list(shown) || "none"}.`;
    }
    case "BangFired":
      return `${who(e.gunner)} fired ${actionWords(e.card)} at ${who(e.target)}: ${e.outcome}.`;
    case "Wounded":
      return `${who(e.seat)} took a Wound${e.by !== null ? ` from ${who(e.by)}` : ""}${e.cause ? ` (${e.cause})` : ""}: ${plural(e.wounds ?? 0, "Wound")} now.`;
    case "Died": {
      const n = e.loot?.length ?? e.loot_size ?? 0;
      const to = e.loot_to === "killer" ? `to ${who(e.killer)}` : e.loot_to === "fire" ? "to the fire" : e.loot_to === "discard" ? "to the discard pile" : `(${e.loot_to})`;
      return `${who(e.seat)} died${e.killer !== null ? `, killed by ${who(e.killer)}` : ""}; ${plural(n, "Loot card")} went ${to}.`;
    }
    case "LootTaken":
      return `${who(e.seat)} took ${e.card === null ? "a Loot card" : lootWords(e.card)} from ${who(e.victim)}${e.chosen ? " (chosen)" : ""}.`;
    case "SpoilsClaimed":
      return e.bagman
        ? `${who(e.seat)} took the Bagman card from ${who(e.from_bagman)}.`
        : `${who(e.seat)} took ${e.card === null ? "a displayed card" : lootWords(e.card)} from the display.`;
    case "BagmanChanged":
      if (e.cause === "vacant") return "Nobody is the Bagman now: a new one will be elected.";
      return `${who(e.seat)} is the Bagman now${e.cause ? ` (${e.cause})` : ""}.`;
    case "ActionDeckRemade":
      return "The Action discard pile was shuffled into a new Action deck.";
    case "CardsDrawn": {
      const n = e.cards?.length ?? e.count ?? 0;
      return e.cards ? `${who(e.seat)} drew ${list(e.cards.map(actionWords)) || "nothing"}.` : `${who(e.seat)} drew ${plural(n, "Action card")}.`;
    }
    case "ActionDiscarded":
      return `${who(e.seat)} discarded ${actionWords(e.card)}.`;
    case "CardGrabbed": {
      const from = e.source === null ? "somewhere" : (SOURCE_WORDS[e.source] ?? e.source);
      const what = e.card === null ? "a card" : e.source === "loot" || e.source === "display" ? lootWords(e.card) : actionWords(e.card);
      return `${who(e.seat)} grabbed ${what} from ${from}.`;
    }
    case "LootBurned":
      return `${who(e.seat)} burned ${actionWords(e.card)} with ${e.loot ? list(e.loot.map(lootWords)) : "two Loot cards"}.`;
    case "VoteCast":
      return `${who(e.seat)} voted for ${who(e.candidate)}.`;
    case "BagmanElected":
      return `${who(e.seat)} was elected Bagman${e.tie ? " (a tie: the next living player)" : ""}.`;
    case "AimWindowClosed":
      return `Nobody shot (${e.reason}).`;
    case "DiscussionEnded":
      return "The Discussion is over.";
    case "GameEnded": {
      const winners = (e.winners ?? []).filter((w): w is number => w !== null).map(who);
      return `The game is over (${e.reason}). ${winners.length ? `Won by ${list(winners)}.` : ""}`.trim();
    }
    default:
      return `${(e as { type: string }).type}`;
  }
}
