// GoodCritters' table (RULES.md): the face-up Loot and the Boss's shares in the middle, the Loot pile, each
// seat's public facts (Boss, Stash size, Payoff cards, Threat marker, chosen/ready, resigned, autopilot), the
// viewer's own Stash and Action card face up, Payoffs and trades on the table, the last vote and the end.
import type { JSX } from "preact";

import type { FeedEvent, Schemas } from "../../api/types";
import type { GameUi, TableProps } from "../registry";
import { Badge, CardBack, Pile, type PickAttrs, clickable, named, cx, fromViewer, money, movesOf, plural, seatNames } from "../common";
import { ACTIONS, ACTION_WORDS, STEP_WORDS } from "./cards";
import { describeGoodCritters } from "./events";

type CardView = Schemas["GoodCrittersCardView"];
type SeatView = Schemas["GoodCrittersSeatView"];
type GcView = Schemas["GoodCrittersView"];
/** A started game's view: the keys the spec leaves null only before the game starts are there. */
type View = GcView & {
  seats: SeatView[];
  boss: number;
  boss_rounds: number;
  step: NonNullable<GcView["step"]>;
  pile_size: number;
  table: CardView[];
  confiscated: CardView[];
  payoffs: NonNullable<GcView["payoffs"]>;
  trades: NonNullable<GcView["trades"]>;
};

/** The view of a started game, or null while it has not started (its table keys are null then). */
function startedView(view: GcView): View | null {
  const { seats, boss, boss_rounds, step, pile_size, table, confiscated, payoffs, trades } = view;
  if (!view.started || seats === null || boss === null || boss_rounds === null || step === null || pile_size === null) return null;
  if (table === null || confiscated === null || payoffs === null || trades === null) return null;
  return { ...view, seats, boss, boss_rounds, step, pile_size, table, confiscated, payoffs, trades };
}

function LootCard({ card, attrs }: { card: CardView; attrs?: PickAttrs }) {
  const visible = `${money(card.value)}${card.type ? ` ${card.type}` : ""}`;
  const label = `${visible} Loot card`;
  return (
    <span
      {...attrs}
      class={cx("card", "loot-card", `value-${card.value}`)}
      data-card={card.id}
      data-value={card.value}
      data-face="up"
      role={(attrs?.role as JSX.AriaRole | undefined) ?? "img"}
      aria-label={named(visible, attrs, label)}
    >
      <span class="card-value" aria-hidden="true">
        {money(card.value)}
      </span>
      {card.type ? (
        <span class="card-type" aria-hidden="true">
          {" "}
          {card.type}
        </span>
      ) : null}
    </span>
  );
}

function Seat({ seat, view, names, viewerSeat, p }: {
  seat: SeatView;
  view: View;
  names: string[];
  viewerSeat: number | null;
  p: Parameters<typeof clickable>[0];
}) {
  const name = names[seat.seat] ?? `seat ${seat.seat}`;
  const you = viewerSeat === seat.seat;
  const score = view.scores?.[seat.seat];
  const winner = view.winners?.includes(seat.seat) ?? false;
  const seatPick = clickable(
    p,
    [
      ["PlaceThreat", "target"],
      ["GiveGift", "to"],
      ["OfferTrade", "to"],
      ["OfferPayoff", "target"],
    ],
    seat.seat,
    `${name}${you ? " (you)" : ""}`,
    null,
  );
  return (
    <li
      class={cx("seat", you && "seat-you", seat.boss && "seat-boss", seat.resigned && "seat-resigned", winner && "seat-winner")}
      data-seat={seat.seat}
      data-boss={seat.boss ? "true" : "false"}
      data-ready={seat.ready ? "true" : "false"}
      data-chosen={seat.chosen ? "true" : "false"}
      data-stash-size={seat.stash_size}
      aria-label={`Seat ${seat.seat}: ${name}`}
    >
      <div class="seat-head">
        <span class="seat-name" {...seatPick}>
          {name}
        </span>
        {you ? <Badge kind="you">you</Badge> : null}
        {seat.boss ? <Badge kind="boss">Boss</Badge> : null}
        {seat.resigned ? <Badge kind="resigned">resigned</Badge> : null}
        {seat.autopilot ? <Badge kind="autopilot">autopilot</Badge> : null}
        {view.step === "choose" && seat.chosen ? <Badge kind="chosen">chosen</Badge> : null}
        {view.step === "choose" && seat.ready ? <Badge kind="ready">ready</Badge> : null}
        {winner ? <Badge kind="winner">winner</Badge> : null}
      </div>
      <div class="seat-body">
        {seat.stash ? (
          <div class="stash" role="group" aria-label={`${you ? "Your" : `${name}'s`} Stash: ${plural(seat.stash.length, "card")}, ${money(seat.stash_value ?? 0)}`}>
            <span class="stash-title">
              Stash {money(seat.stash_value ?? 0)}
            </span>
            <span class="cards">
              {seat.stash.map((c) => (
                <LootCard
                  key={c.id}
                  card={c}
                  attrs={clickable(
                    p,
                    [
                      ["GiveGift", "loot"],
                      ["OfferPayoff", "loot"],
                      ["OfferTrade", "give_loot"],
                      ["AcceptTrade", "loot"],
                    ],
                    c.id,
                    `${money(c.value)} Loot card in ${you ? "your" : `${name}'s`} Stash`,
                  )}
                />
              ))}
            </span>
          </div>
        ) : (
          <Pile count={seat.stash_size} label="Stash" kind="stash" />
        )}
        <span class="payoff-cards" data-payoff-cards={seat.payoff_cards}>
          {plural(seat.payoff_cards, "Payoff card")}
        </span>
        {seat.threat !== null && seat.threat !== undefined ? (
          <span class="threat" data-threat={seat.threat}>
            Threat marker in front of {names[seat.threat] ?? `seat ${seat.threat}`}
          </span>
        ) : null}
        {seat.action ? (
          <span class="card action-card" data-face="up" data-action={seat.action} role="img" aria-label={`Action card: ${ACTION_WORDS[seat.action] ?? seat.action}`}>
            {ACTION_WORDS[seat.action] ?? seat.action}
          </span>
        ) : seat.chosen ? (
          <CardBack label={`${name} chose an Action card (face down)`} />
        ) : null}
        {score !== undefined && score !== null ? (
          <span class="score" data-score={score}>
            Score {money(score)}
          </span>
        ) : null}
      </div>
    </li>
  );
}

export function GoodCrittersTable({ state, game, viewerSeat, replay, pick }: TableProps) {
  const shown = state.state;
  const view = shown.ruleset === "goodcritters" ? startedView(shown) : null;
  if (!view) {
    return (
      <section class="game-table" data-game="goodcritters" aria-label="GoodCritters table">
        <p>The game has not started.</p>
      </section>
    );
  }
  const names = seatNames(game, view.seats.length);
  const p = { moves: movesOf(state), pick, replay };
  const me = viewerSeat !== null ? view.seats[viewerSeat] : undefined;
  const order = fromViewer(view.seats.length, viewerSeat);
  const shares = view.shares;
  return (
    <section
      class="game-table gc-table"
      data-game="goodcritters"
      data-round={view.round}
      data-step={view.step}
      data-step-no={view.step_no}
      aria-label="GoodCritters table"
    >
      <header class="table-status" role="group" aria-label="Where the game stands">
        <span data-status="round">Round {view.round}</span>
        <span data-status="step">{STEP_WORDS[view.step] ?? view.step}</span>
        <span data-status="boss">
          Boss: {names[view.boss] ?? `seat ${view.boss}`}
          {view.boss_rounds > 1 ? ` (${view.boss_rounds} rounds in a row)` : ""}
        </span>
        <Pile count={view.pile_size} label="Loot pile" kind="loot-pile" />
      </header>
      <div class="table-middle" role="group" aria-label="The middle of the table">
        {shares ? (
          <div class="shares" role="group" aria-label="The Boss's shares">
            <h3>The Boss's shares</h3>
            <ul>
              {shares.map((share, seat) => (
                <li key={seat} data-share={seat}>
                  <span class="share-name">{names[seat] ?? `seat ${seat}`}</span>{" "}
                  <span class="cards">
                    {share.length ? share.map((c) => <LootCard key={c.id} card={c} />) : <span class="t-none">nothing</span>}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <div class="face-up" role="group" aria-label={`Face-up Loot: ${plural(view.table.length, "card")}`}>
            <h3>Face-up Loot</h3>
            <span class="cards" data-zone="table">
              {view.table.length ? view.table.map((c) => <LootCard key={c.id} card={c} />) : <span class="t-none">none</span>}
            </span>
          </div>
        )}
        {view.last_vote ? (
          <p class="last-vote" data-outcome={view.last_vote.outcome}>
            Last vote: {view.last_vote.yes} yes, {view.last_vote.no} no: {view.last_vote.outcome}
          </p>
        ) : null}
        {view.confiscated.length ? (
          <div class="confiscated" role="group" aria-label="Confiscated by The Fuzz!">
            <h3>Confiscated by The Fuzz!</h3>
            <span class="cards">
              {view.confiscated.map((c) => (
                <LootCard key={c.id} card={c} />
              ))}
            </span>
          </div>
        ) : null}
        {view.over ? (
          <p class="game-over" data-end-reason={view.end_reason ?? ""}>
            Game over{view.end_reason ? ` (${view.end_reason})` : ""}.{" "}
            {view.winners?.length ? `Won by ${view.winners.map((w) => names[w] ?? `seat ${w}`).join(", ")}.` : ""}
          </p>
        ) : null}
      </div>
      <ul class="table-seats" aria-label="Seats">
        {order.map((s) => {
          const seat = view.seats[s];
          return seat ? <Seat key={s} seat={seat} view={view} names={names} viewerSeat={viewerSeat} p={p} /> : null;
        })}
      </ul>
      {view.payoffs.length ? (
        <div class="payoffs" role="group" aria-label="Payoffs on the table">
          <h3>Payoffs</h3>
          <ul>
            {view.payoffs.map((b) => (
              <li key={`${b.seat}-${b.token}`} data-payoff-from={b.seat} data-payoff-to={b.target} data-side={b.side}>
                <span class={cx("token", `token-${b.side}`)}>{b.side === "yes" ? "Yes" : "No"}</span>{" "}
                {names[b.seat] ?? `seat ${b.seat}`} → {names[b.target] ?? `seat ${b.target}`}: {plural(b.loot_count, "Loot card")}
                {b.payoff_cards ? ` + ${plural(b.payoff_cards, "Payoff card")}` : ""} ({b.visibility}){" "}
                <span class="cards">
                  {b.loot
                    ? b.loot.map((c) => <LootCard key={c.id} card={c} />)
                    : Array.from({ length: b.loot_count }, (_, k) => <CardBack key={k} label="a Loot card, face down" />)}
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {view.trades.length ? (
        <div class="trades" role="group" aria-label="Trade offers">
          <h3>Trade offers</h3>
          <ul>
            {view.trades.map((t) => (
              <li key={t.trade_id} data-trade={t.trade_id}>
                {names[t.seat] ?? `seat ${t.seat}`} offers {names[t.to] ?? `seat ${t.to}`}{" "}
                {t.give_loot ? t.give_loot.map((c) => money(c.value)).join(", ") || "no Loot" : plural(t.give_loot_count, "Loot card")}
                {t.give_payoff ? ` + ${plural(t.give_payoff, "Payoff card")}` : ""} for{" "}
                {t.want_values ? t.want_values.map(money).join(", ") || "no Loot" : plural(t.want_loot_count, "Loot card")}
                {t.want_payoff ? ` + ${plural(t.want_payoff, "Payoff card")}` : ""}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {me && !replay && !view.over ? (
        <div class="your-actions" role="group" aria-label="Your Action cards">
          <h3>Your Action cards</h3>
          <span class="cards">
            {ACTIONS.map((a) => (
              <span
                key={a}
                {...clickable(p, [["ChooseAction", "action"]], a, `Action card ${ACTION_WORDS[a]}`)}
                class={cx("card", "action-card", me.action === a && "card-chosen")}
                data-action={a}
                data-face="up"
              >
                {ACTION_WORDS[a]}
              </span>
            ))}
          </span>
        </div>
      ) : null}
    </section>
  );
}

export const goodcritters: GameUi = {
  slug: "goodcritters",
  title: "GoodCritters",
  Table: GoodCrittersTable,
  describeEvent: (event: FeedEvent, names?: readonly string[]) => describeGoodCritters(event, names),
};
