// GoodCritters' events in words, one line each, from the event as the viewer received it: a field the viewer
// may not see is null in it and is never guessed (R8.3).
import type { FeedEvent, Schemas } from "../../api/types";
import { describeTableEvent, list, money, nameOf, plural } from "../common";
import { ACTION_WORDS, cardValue, cardWords } from "./cards";

type GcEvent = Schemas["GoodCrittersEvent"];

function cards(ids: ReadonlyArray<number | null> | null | undefined): string {
  const known = (ids ?? []).filter((c): c is number => c !== null);
  return known.length ? list(known.map(cardWords)) : "";
}

function total(ids: ReadonlyArray<number | null> | null | undefined): number {
  return (ids ?? []).reduce<number>((sum, c) => sum + (c === null ? 0 : (cardValue(c) ?? 0)), 0);
}

function bundle(loot: ReadonlyArray<number | null> | null | undefined, count: number | null, payoffs: number | null) {
  const parts: string[] = [];
  const n = count ?? loot?.length ?? 0;
  if (n) parts.push(loot ? `${plural(n, "Loot card")} (${cards(loot)})` : plural(n, "Loot card"));
  if (payoffs) parts.push(plural(payoffs, "Payoff card"));
  return list(parts) || "nothing";
}

export function describeGoodCritters(item: FeedEvent, names?: readonly string[]): string {
  const table = describeTableEvent(item.event, names);
  if (table !== null) return table;
  const who = (s: number | null | undefined) => nameOf(names, s);
  const e = item.event as GcEvent;
  switch (e.type) {
    case "GameStarted":
      return `The game started with ${plural(e.players?.length ?? 0, "player")}; ${who(e.boss)} is the first Boss.`;
    case "RoundStarted":
      return `Round ${e.round} begins; ${who(e.boss)} is the Boss.`;
    case "LootRevealed":
      return e.extra
        ? `Two more cards were turned over: ${cards(e.cards) || "none"}.`
        : `The Boss turned over ${cards(e.cards) || "no cards"}.`;
    case "FuzzRevealed":
      return `The Fuzz! turned up${e.seat !== null ? ` (${who(e.seat)}'s ${e.cause ?? "draw"})` : e.cause ? ` (${e.cause})` : ""}.`;
    case "StepOpened":
      return e.step === "distribute"
        ? `Round ${e.round}: the Boss distributes the Loot.`
        : e.step === "choose"
          ? `Round ${e.round}: everyone chooses an Action card.`
          : `Round ${e.round}: step ${e.step}.`;
    case "LootDistributed": {
      const shares = (e.shares ?? []).map((share, seat) =>
        share && share.length ? `${who(seat)} ${money(total(share))}` : null,
      );
      const given = shares.filter((s): s is string => s !== null);
      return `${who(e.boss)} ${e.auto ? "had the Loot dealt" : "split the Loot"}: ${list(given) || "nobody gets anything"}.`;
    }
    case "ActionChosen":
      return e.action
        ? `${who(e.seat)} chose ${ACTION_WORDS[e.action] ?? e.action}.`
        : `${who(e.seat)} chose an Action card, face down.`;
    case "ThreatPlaced":
      return `${who(e.seat)} put their Threat marker in front of ${who(e.target)}.`;
    case "ThreatRemoved":
      return `${who(e.seat)} took back their Threat marker.`;
    case "PayoffOffered":
      return `${who(e.seat)} put a Payoff token, ${e.side === "yes" ? "Yes" : "No"} side up, in front of ${who(e.target)} with ${bundle(e.loot, e.loot_count, e.payoff_cards)} (${e.visibility}).`;
    case "PayoffWithdrawn":
      return `${who(e.seat)} took back a Payoff.`;
    case "GiftGiven":
      return `${who(e.seat)} gave ${bundle(e.loot, e.loot_count, e.payoff_cards)} to ${who(e.to)}.`;
    case "TradeOffered": {
      const want: string[] = [];
      const wn = e.want_loot_count ?? 0;
      if (wn) want.push(e.want_values ? `${plural(wn, "Loot card")} (${list(e.want_values.filter((v): v is number => v !== null).map(money))})` : plural(wn, "Loot card"));
      if (e.want_payoff) want.push(plural(e.want_payoff, "Payoff card"));
      return `${who(e.seat)} offered ${who(e.to)} a trade: ${bundle(e.give_loot, e.give_loot_count, e.give_payoff)} for ${list(want) || "nothing"}.`;
    }
    case "TradeAccepted":
      return `${who(e.seat)} accepted ${who(e.offerer)}'s trade: ${bundle(e.give_loot, e.give_loot_count, e.give_payoff)} for ${bundle(e.take_loot, e.take_loot_count, e.take_payoff)}.`;
    case "TradeFailed":
      return `${who(e.offerer)}'s trade with ${who(e.seat)} failed: a side no longer held what it promised.`;
    case "TradeDeclined":
      return `${who(e.seat)} declined a trade.`;
    case "TradeWithdrawn":
      return `${who(e.seat)} withdrew a trade offer.`;
    case "TradesLapsed":
      return `${plural(e.trade_ids?.length ?? 0, "trade offer")} lapsed.`;
    case "StepClosed":
      return `The ${e.step} step closed (${e.reason}).`;
    case "ActionRevealed":
      return `${who(e.seat)} revealed ${e.action ? (ACTION_WORDS[e.action] ?? e.action) : "no card"}${e.early ? " (early, against a Rob)" : ""}${e.defaulted ? " (played for them)" : ""}.`;
    case "PayoffResolved":
      return e.taken
        ? `${who(e.target)} took ${who(e.seat)}'s Payoff: ${bundle(e.loot, e.loot_count, e.payoff_cards)}.`
        : `${who(e.seat)}'s Payoff to ${who(e.target)} went back to ${who(e.seat)}.`;
    case "LootSkimmed":
      return e.card !== null ? `${who(e.seat)} skimmed ${cardWords(e.card)} from the pile.` : `${who(e.seat)} skimmed a card from the pile.`;
    case "RobSucceeded":
      return `${who(e.robber)} robbed ${who(e.victim)}${e.card !== null ? ` of ${cardWords(e.card)}` : " of a card"}.`;
    case "RobGuarded":
      return `${who(e.guard)} guarded against ${who(e.robber)} and took ${e.card !== null ? cardWords(e.card) : "a card"} from them.`;
    case "VoteResolved":
      return `The vote: ${e.yes} yes, ${e.no} no: ${e.outcome === "pass" ? "it passes" : e.outcome === "tie" ? "a tie" : "it fails"}.`;
    case "LootAwarded":
      return "Everyone takes the Loot they were given.";
    case "LootReturned":
      return `${plural(e.cards?.length ?? 0, "card")} went back to the middle.`;
    case "BossChanged":
      return `${who(e.boss)} is the new Boss${e.reason ? ` (${e.reason})` : ""}.`;
    case "BossBonus":
      return `${who(e.seat)} took ${e.card !== null ? cardWords(e.card) : "a card"} as the Boss's bonus.`;
    case "RoundEnded":
      return `Round ${e.round} is over.`;
    case "LootConfiscated":
      return `The Fuzz! confiscated ${plural(e.cards?.length ?? 0, "card")} on the table.`;
    case "GameEnded": {
      const winners = (e.winners ?? []).filter((w): w is number => w !== null).map(who);
      return `The game is over (${e.reason}). ${winners.length ? `Won by ${list(winners)}.` : ""}`.trim();
    }
    default:
      return `${(e as { type: string }).type}`;
  }
}
