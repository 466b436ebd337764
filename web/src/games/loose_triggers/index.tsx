// Loose Triggers' table (RULES-loose-triggers.md): the Bagman's display (face-down cards as backs, except to
// the Bagman), the decks and the Action discard pile, each seat with its alias, Wounds, death, aim, played
// card and the sizes of hand and Loot stack; the viewer's own hand, stack and Pal; the end's ranks and scores.
import type { JSX } from "preact";

import type { FeedEvent, Schemas } from "../../api/types";
import type { GameUi, TableProps } from "../registry";
import { Badge, CardBack, Pile, type PickAttrs, type Pickable, clickable, named, cx, fromViewer, money, movesOf, nameOf, plural, seatNames } from "../common";
import { STEP_WORDS, actionKind } from "./cards";
import { describeLooseTriggers } from "./events";

type SeatView = Schemas["LooseTriggersSeatView"];
type LtView = Schemas["LooseTriggersView"];
/** A started game's view: the keys the spec leaves null only before the game starts are there. */
type View = LtView & {
  seats: SeatView[];
  display: NonNullable<LtView["display"]>;
  loot_deck_size: number;
  loot_discard_size: number;
  action_deck_size: number;
  action_discard: number[];
  deaths: number[];
};

/** The view of a started game, or null while it has not started (its table keys are null then). */
function startedView(view: LtView): View | null {
  const { seats, display, loot_deck_size, loot_discard_size, action_deck_size, action_discard, deaths } = view;
  if (!view.started || seats === null || display === null || action_discard === null || deaths === null) return null;
  if (loot_deck_size === null || loot_discard_size === null || action_deck_size === null) return null;
  return { ...view, seats, display, loot_deck_size, loot_discard_size, action_deck_size, action_discard, deaths };
}
type Loot = Schemas["LooseTriggersLootView"];

function lootLabel(l: Loot): string {
  return l.kind === "cash" ? money(l.value ?? 0) : (l.relic ?? "relic");
}

function LootCard({ loot, attrs, down }: { loot: Loot; attrs?: PickAttrs; down?: boolean }) {
  return (
    <span
      {...attrs}
      class={cx("card", "loot-card", loot.kind === "relic" ? "relic" : `value-${loot.value}`, down && "seen-face-down")}
      data-card={loot.card}
      data-face={down ? "down-seen" : "up"}
      role={(attrs?.role as JSX.AriaRole | undefined) ?? "img"}
      aria-label={named(`${lootLabel(loot)}${loot.kind === "relic" ? " relic" : ""}`, attrs, `${lootLabel(loot)}${down ? " (face down)" : ""}`)}
    >
      <span class="card-value" aria-hidden="true">
        {lootLabel(loot)}
      </span>
      {loot.kind === "relic" ? (
        <span class="card-type" aria-hidden="true">
          {" "}relic
        </span>
      ) : null}
    </span>
  );
}

function ActionCard({ card, attrs, label }: { card: number; attrs?: PickAttrs; label?: string }) {
  const kind = actionKind(card);
  return (
    <span
      {...attrs}
      class={cx("card", "action-card", `action-${kind.replace(/[^A-Z]/g, "").toLowerCase()}`)}
      data-card={card}
      data-action={kind}
      data-face="up"
      role={(attrs?.role as JSX.AriaRole | undefined) ?? "img"}
      aria-label={named(`${kind} ${card}`, attrs, label ?? `${kind} ${card}`)}
    >
      <span aria-hidden="true">{kind}</span>
      <small aria-hidden="true"> {card}</small>
    </span>
  );
}

function Wounds({ wounds, alive }: { wounds: number; alive: boolean }) {
  return (
    <svg class="wounds" viewBox="0 0 88 20" width="88" height="20" role="img" aria-label={alive ? `${plural(wounds, "Wound")} of 4` : "dead"} data-wounds={wounds}>
      {[0, 1, 2, 3].map((k) => (
        <circle key={k} cx={10 + k * 22} cy={10} r={8} class={k < wounds ? "wound wound-taken" : "wound"} />
      ))}
    </svg>
  );
}

function Seat({ seat, view, names, viewerSeat, p, ready }: {
  seat: SeatView;
  view: View;
  names: string[];
  viewerSeat: number | null;
  p: Pickable;
  ready: boolean;
}) {
  const name = nameOf(names, seat.seat);
  const you = viewerSeat === seat.seat;
  const deathNo = view.deaths.indexOf(seat.seat);
  const winner = view.winners?.includes(seat.seat) ?? false;
  const pickingFrom = view.step === "pick" && view.pending_target === seat.seat;
  return (
    <li
      class={cx("seat", you && "seat-you", seat.bagman && "seat-bagman", !seat.alive && "seat-dead", winner && "seat-winner")}
      data-seat={seat.seat}
      data-alive={seat.alive ? "true" : "false"}
      data-bagman={seat.bagman ? "true" : "false"}
      data-wounds={seat.wounds}
      data-target={seat.target ?? ""}
      data-hand-size={seat.hand_size}
      data-stack-size={seat.stack_size}
      aria-label={`Seat ${seat.seat}: ${name} (${seat.alias})`}
    >
      <div class="seat-head">
        <span
          class="seat-name"
          {...clickable(
            p,
            [
              ["Aim", "target"],
              ["GiveLoot", "to"],
              ["ElectBagman", "candidate"],
            ],
            seat.seat,
            `${name}${you ? " (you)" : ""}, ${seat.alias}`,
            null,
          )}
        >
          {name}
        </span>{" "}
        <span class="alias">{seat.alias}</span>
        {you ? <Badge kind="you">you</Badge> : null}
        {seat.bagman ? <Badge kind="bagman">Bagman</Badge> : null}
        {view.counter === seat.seat ? <Badge kind="counter">Counter</Badge> : null}
        {!seat.alive ? <Badge kind="dead">{`dead${deathNo >= 0 ? ` (#${deathNo + 1})` : ""}`}</Badge> : null}
        {seat.resigned ? <Badge kind="resigned">resigned</Badge> : null}
        {ready ? <Badge kind="ready">ready</Badge> : null}
        {seat.chose ? <Badge kind="chosen">chose</Badge> : null}
        {winner ? <Badge kind="winner">winner</Badge> : null}
      </div>
      <div class="seat-body">
        <Wounds wounds={seat.wounds} alive={seat.alive} />
        {seat.target !== null && seat.target !== undefined ? (
          <span class="aim" data-aim={seat.target}>
            aims at {nameOf(names, seat.target)}
            {seat.retargets ? ` (changed ${plural(seat.retargets, "time")})` : ""}
          </span>
        ) : null}
        {seat.played !== null && seat.played !== undefined ? (
          <span class="played">
            played <ActionCard card={seat.played} label={`${name} played ${actionKind(seat.played)} ${seat.played}`} />
          </span>
        ) : seat.chosen_card !== null && seat.chosen_card !== undefined ? (
          <span class="played">
            chose <ActionCard card={seat.chosen_card} label={`You chose ${actionKind(seat.chosen_card)} ${seat.chosen_card}`} />
          </span>
        ) : seat.chose ? (
          <CardBack label={`${name} chose a card (face down)`} />
        ) : null}
        {seat.in_play !== null && seat.in_play !== undefined && seat.in_play !== seat.played ? (
          <span class="in-play">
            in play <ActionCard card={seat.in_play} />
          </span>
        ) : null}
        {seat.vote !== null && seat.vote !== undefined ? <span class="vote">votes for {nameOf(names, seat.vote)}</span> : null}
        {seat.hand ? (
          <div class="hand" role="group" aria-label={`${you ? "Your" : `${name}'s`} hand: ${plural(seat.hand.length, "card")}`}>
            <span class="zone-title">Hand</span>
            <span class="cards">
              {seat.hand.map((c) => (
                <ActionCard
                  key={c.card}
                  card={c.card}
                  attrs={clickable(
                    p,
                    [
                      ["ChooseAction", "card"],
                      ["BurnLoot", "card"],
                    ],
                    c.card,
                    `${c.kind} ${c.card} in ${you ? "your" : `${name}'s`} hand`,
                  )}
                />
              ))}
            </span>
          </div>
        ) : (
          <Pile count={seat.hand_size} label="Hand" kind="hand" />
        )}
        {seat.stack ? (
          <div class="stack" role="group" aria-label={`${you ? "Your" : `${name}'s`} Loot: ${plural(seat.stack.length, "card")}${seat.stack_value !== null && seat.stack_value !== undefined ? `, ${money(seat.stack_value)}` : ""}`}>
            <span class="zone-title">
              Loot{seat.stack_value !== null && seat.stack_value !== undefined ? ` ${money(seat.stack_value)}` : ""}
            </span>
            <span class="cards">
              {seat.stack.map((l) => (
                <LootCard
                  key={l.card}
                  loot={l}
                  attrs={clickable(p, pickingFrom ? [["PickLoot", "card"]] : [["BurnLoot", "loot"]], l.card, `${lootLabel(l)} in ${you ? "your" : `${name}'s`} Loot`)}
                />
              ))}
            </span>
          </div>
        ) : (
          <Pile count={seat.stack_size} label="Loot" kind="stack" />
        )}
        {seat.pal !== null && seat.pal !== undefined ? (
          <span class="pal" data-pal={seat.pal}>
            {you ? "Your Pal" : "Pal"}: {nameOf(names, seat.pal)}
          </span>
        ) : null}
        {view.scores ? (
          <span class="score" data-score={view.scores[seat.seat] ?? ""}>
            Loot {money(view.values?.[seat.seat] ?? 0)}, rank {view.ranks?.[seat.seat] ?? "?"}, score {view.scores[seat.seat] ?? "?"}
          </span>
        ) : null}
      </div>
    </li>
  );
}

export function LooseTriggersTable({ state, game, viewerSeat, replay, pick }: TableProps) {
  const shown = state.state;
  const view = shown.ruleset === "loose_triggers" ? startedView(shown) : null;
  if (!view) {
    return (
      <section class="game-table" data-game="loose_triggers" aria-label="Loose Triggers table">
        <p>The game has not started.</p>
      </section>
    );
  }
  const names = seatNames(game, view.seats.length);
  const p: Pickable = { moves: movesOf(state), pick, replay };
  const order = fromViewer(view.seats.length, viewerSeat);
  const readyBy = new Map((view.play?.seats ?? []).map((s) => [s.seat, s.ready]));
  const discardTop = view.action_discard[view.action_discard.length - 1];
  return (
    <section
      class="game-table lt-table"
      data-game="loose_triggers"
      data-step={view.step ?? ""}
      data-step-no={view.step_no}
      data-discussion={view.discussion ?? ""}
      aria-label="Loose Triggers table"
    >
      <header class="table-status" role="group" aria-label="Where the game stands">
        <span data-status="step">{view.over ? "Game over" : view.step ? (STEP_WORDS[view.step] ?? view.step) : "Between steps"}</span>
        <span data-status="bagman">Bagman: {view.bagman !== null && view.bagman >= 0 ? nameOf(names, view.bagman) : "nobody"}</span>
        {view.discussion ? <span data-status="discussion">Discussion: {view.discussion}</span> : null}
        {view.pending_seat !== null ? (
          <span data-status="pending">
            {nameOf(names, view.pending_seat)} to play{view.pending_target !== null ? ` against ${nameOf(names, view.pending_target)}` : ""}
          </span>
        ) : null}
      </header>
      <div class="table-middle" role="group" aria-label="The middle of the table">
        <div class="display" role="group" aria-label={`The Bagman's display: ${plural(view.display.length, "card")}`}>
          <h3>Display</h3>
          <span class="cards" data-zone="display">
            {view.display.length ? (
              view.display.map((d) => {
                const attrs = clickable(
                  p,
                  [
                    ["GiveLoot", "slot"],
                    ["ClaimSpoils", "slot"],
                  ],
                  d.slot,
                  d.loot ? `Display slot ${d.slot + 1}: ${lootLabel(d.loot)}${d.face_down ? " (face down)" : ""}` : `Display slot ${d.slot + 1}: a face-down card`,
                );
                return d.loot ? (
                  <LootCard key={d.slot} loot={d.loot} down={d.face_down} attrs={{ ...attrs, "data-slot": String(d.slot) } as PickAttrs} />
                ) : (
                  <span key={d.slot} {...attrs} class="card card-back" data-slot={d.slot} data-face="down" />
                );
              })
            ) : (
              <span class="t-none">nothing displayed</span>
            )}
          </span>
        </div>
        <div class="decks" role="group" aria-label="Decks">
          <Pile count={view.loot_deck_size} label="Loot deck" kind="loot-deck" />
          <Pile count={view.loot_discard_size} label="Loot discard" kind="loot-discard" />
          <Pile count={view.action_deck_size} label="Action deck" kind="action-deck" />
          <span class="pile pile-action-discard" data-pile="action-discard" data-count={view.action_discard.length}>
            {discardTop !== undefined ? <ActionCard card={discardTop} label={`Top of the Action discard pile: ${actionKind(discardTop)} ${discardTop}`} /> : <span class="card card-empty" aria-hidden="true" />}
            <span class="pile-count">Action discard: {view.action_discard.length}</span>
          </span>
        </div>
        {view.over ? (
          <p class="game-over" data-end-reason={view.end_reason ?? ""}>
            Game over{view.end_reason ? ` (${view.end_reason})` : ""}.{" "}
            {view.winners?.length ? `Won by ${view.winners.map((w) => nameOf(names, w)).join(", ")}.` : ""}
          </p>
        ) : null}
      </div>
      <ul class="table-seats" aria-label="Seats">
        {order.map((s) => {
          const seat = view.seats[s];
          return seat ? <Seat key={s} seat={seat} view={view} names={names} viewerSeat={viewerSeat} p={p} ready={!!readyBy.get(s) && !!view.play?.ready_flags} /> : null;
        })}
      </ul>
    </section>
  );
}

export const looseTriggers: GameUi = {
  slug: "loose_triggers",
  title: "Loose Triggers, Smoking Barrels",
  Table: LooseTriggersTable,
  describeEvent: (event: FeedEvent, names?: readonly string[]) => describeLooseTriggers(event, names),
};
