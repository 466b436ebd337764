// Were-cats' table (RULES-were-cats.md): the supply and the city as coins, each player's card with its turn
// slots 1-6 (cats heads or tails up), hand, eat area and scare area, the quarter, whose cat acts now, the
// round and the points. Coins are drawn in SVG: penny (copper), nickel, dime (smaller), the quarter.
import type { JSX } from "preact";

import type { FeedEvent, Schemas } from "../../api/types";
import type { GameUi, TableProps } from "../registry";
import { Badge, type PickAttrs, type Pickable, clickable, named, cx, fromViewer, movesOf, nameOf, seatNames } from "../common";
import { KINDS, coinWords, coinsWords, describeWereCats } from "./events";

type View = Required<Schemas["WereCatsView"]>;
type SeatView = Schemas["WereCatsSeatView"];
type Coins = Schemas["WereCatsCoinsView"];

const LETTER: Record<string, string> = { penny: "1¢", nickel: "5¢", dime: "10¢", quarter: "25¢" };
const PHASE_WORDS: Record<string, string> = {
  new: "Not started",
  choose: "Setup: choosing starting coins",
  place: "Phase 1: place victims",
  populate: "Populating the city",
  act: "Phase 2: the cats act",
  over: "Game over",
};

function Coin({ kind, heads = true, label, attrs }: { kind: string; heads?: boolean; label: string; attrs?: PickAttrs }) {
  const r = kind === "dime" ? 13 : kind === "quarter" ? 17 : 15;
  return (
    <span {...attrs} class={cx("coin", `coin-${kind}`, !heads && "coin-tails")} data-coin={kind} data-heads={heads ? "true" : "false"} role={(attrs?.role as JSX.AriaRole | undefined) ?? "img"} aria-label={named(LETTER[kind] ?? kind, attrs, label)}>
      <svg viewBox="0 0 36 36" width="36" height="36" aria-hidden="true" focusable="false">
        <circle cx="18" cy="18" r={r} class="coin-face" />
        <circle cx="18" cy="18" r={r - 3} class="coin-rim" />
        <text x="18" y="22" text-anchor="middle" class="coin-text">
          {LETTER[kind]}
        </text>
      </svg>
    </span>
  );
}

function CoinRow({ coins, zone, p, wants, owner }: { coins: Coins; zone: string; p?: Pickable; wants?: ReadonlyArray<readonly [string, string]>; owner: string }) {
  const total = coins.penny + coins.nickel + coins.dime;
  return (
    <span class="coins" role="group" data-zone={zone} data-count={total} aria-label={`${owner}: ${coinsWords(coins)}`}>
      {total === 0 ? <span class="t-none">empty</span> : null}
      {KINDS.flatMap((k) =>
        Array.from({ length: coins[k] }, (_, i) => (
          <Coin key={`${k}${i}`} kind={k} label={`${k} (${zone})`} attrs={p && wants && i === 0 ? clickable(p, wants, k, `${coinWords(coins[k], k)} in ${owner}`) : undefined} />
        )),
      )}
    </span>
  );
}

function PlayerCard({ seat, view, names, viewerSeat, p }: { seat: SeatView; view: View; names: string[]; viewerSeat: number | null; p: Pickable }) {
  const name = nameOf(names, seat.seat);
  const you = viewerSeat === seat.seat;
  const acting = view.turn?.seat === seat.seat;
  const winner = view.winners?.includes(seat.seat) ?? false;
  const waiting = view.waiting?.seats.includes(seat.seat) ?? false;
  return (
    <li
      class={cx("seat", "wc-seat", you && "seat-you", acting && "seat-acting", winner && "seat-winner", seat.resigned && "seat-resigned")}
      data-seat={seat.seat}
      data-points={seat.points}
      data-quarter={seat.quarter ? "true" : "false"}
      data-done={seat.done ? "true" : "false"}
      aria-label={`Seat ${seat.seat}: ${name}`}
    >
      <div class="seat-head">
        <span class="seat-name">{name}</span>
        {you ? <Badge kind="you">you</Badge> : null}
        {seat.quarter ? <Badge kind="quarter">quarter</Badge> : null}
        {acting ? <Badge kind="acting">{view.turn?.slot ? `cat on slot ${view.turn.slot} acts` : "to play"}</Badge> : null}
        {waiting && !acting ? <Badge kind="waiting">to play</Badge> : null}
        {view.phase === "place" && seat.done ? <Badge kind="ready">done</Badge> : null}
        {seat.resigned ? <Badge kind="resigned">resigned</Badge> : null}
        {winner ? <Badge kind="winner">winner</Badge> : null}
        <span class="points" data-points={seat.points}>
          {seat.points} points
        </span>
      </div>
      <ol class="slots" aria-label={`${name}'s turn-order slots`}>
        {[1, 2, 3, 4, 5, 6].map((slot) => {
          const cat = seat.cats.find((c) => c.slot === slot);
          const current = acting && view.turn?.slot === slot;
          return (
            <li
              key={slot}
              class={cx("slot", current && "slot-acting")}
              data-slot={slot}
              data-cat={cat ? cat.kind : ""}
              data-heads={cat ? (cat.heads ? "true" : "false") : ""}
            >
              <span
                class="slot-box"
                {...(cat || !you
                  ? { role: "group", "aria-label": cat ? `Slot ${slot}: ${cat.kind} cat, ${cat.heads ? "heads up" : "tails up"}` : `Slot ${slot}: empty` }
                  : clickable(p, [["MakeCat", "slot"]], slot, `Slot ${slot}: empty`, "group"))}
              >
                <span class="slot-no" aria-hidden="true">
                  {slot}
                </span>
                {cat ? <Coin kind={cat.kind} heads={cat.heads} label={`${cat.kind} cat, ${cat.heads ? "heads" : "tails"} up`} /> : null}
              </span>
            </li>
          );
        })}
      </ol>
      <div class="areas">
        <div class="area">
          <span class="zone-title">Hand</span>
          <CoinRow coins={seat.hand} zone="hand" owner={`${name}'s hand`} />
        </div>
        <div class="area">
          <span class="zone-title">Eat</span>
          <CoinRow coins={seat.eat} zone="eat" owner={`${name}'s eat area`} />
        </div>
        <div class="area">
          <span class="zone-title">Scare</span>
          <CoinRow coins={seat.scare} zone="scare" owner={`${name}'s scare area`} />
        </div>
      </div>
    </li>
  );
}

export function WereCatsTable({ state, game, viewerSeat, replay, pick }: TableProps) {
  const view = state.state as View;
  if (view.ruleset !== "were_cats" || !view.started) {
    return (
      <section class="game-table" data-game="were_cats" aria-label="Were-cats table">
        <p>The game has not started.</p>
      </section>
    );
  }
  const names = seatNames(game, view.seats.length);
  const p: Pickable = { moves: movesOf(state), pick, replay };
  const order = fromViewer(view.seats.length, viewerSeat);
  return (
    <section class="game-table wc-table" data-game="were_cats" data-round={view.round} data-phase={view.phase} data-step-no={view.step_no} aria-label="Were-cats table">
      <header class="table-status" role="group" aria-label="Where the game stands">
        <span data-status="round">
          Round {view.round} of {view.max_rounds}
        </span>
        <span data-status="step">{PHASE_WORDS[view.phase] ?? view.phase}</span>
        <span data-status="quarter">
          Quarter: {view.quarter !== null ? nameOf(names, view.quarter) : "between the players"}
        </span>
        {view.quarter === null ? <Coin kind="quarter" label="The quarter, between the players" /> : null}
      </header>
      <div class="table-middle" role="group" aria-label="The middle of the table">
        <div class="area city">
          <h3>City</h3>
          <CoinRow
            coins={view.city}
            zone="city"
            owner="the city"
            p={p}
            wants={[
              ["TakeVictim", "kind"],
              ["MakeCat", "kind"],
            ]}
          />
        </div>
        <div class="area supply">
          <h3>Supply</h3>
          <CoinRow
            coins={view.supply}
            zone="supply"
            owner="the supply"
            p={p}
            wants={[
              ["PopulateCity", "kind"],
              ["ChooseStartingCoins", "kind"],
            ]}
          />
        </div>
        {view.over ? (
          <p class="game-over" data-end-reason={view.end_reason ?? ""}>
            Game over{view.end_reason ? ` (${view.end_reason})` : ""}.{" "}
            {view.winners?.length ? `Won by ${view.winners.map((w) => nameOf(names, w)).join(", ")}.` : ""}
          </p>
        ) : null}
      </div>
      <ul class="table-seats" aria-label="Players">
        {order.map((s) => {
          const seat = view.seats[s];
          return seat ? <PlayerCard key={s} seat={seat} view={view} names={names} viewerSeat={viewerSeat} p={p} /> : null;
        })}
      </ul>
    </section>
  );
}

export const wereCats: GameUi = {
  slug: "were_cats",
  title: "Were-cats",
  Table: WereCatsTable,
  describeEvent: (event: FeedEvent, names?: readonly string[]) => describeWereCats(event, names),
};
