// What the three table drawings share: seat names, the legal moves a click may fill (`pick`), money, the
// table's own events in words, and small drawn parts (badges, a pile with its count, a card back).
// Everything renders text as text (TSX children), never as markup.
import type { ComponentChildren, JSX } from "preact";

import type { FeedEvent, Game, GameState, Schemas } from "../../api/types";
import "../games.css";

/** A legal move as the contract's `moves` lists it (GameState.moves, issue #24); typed structurally so the
 * drawings work before and after the generated types carry it. */
export interface MoveField {
  name: string;
  kind: string;
  options?: unknown[];
  items?: unknown[];
  fixed?: unknown;
}
export interface Move {
  command: string;
  fields: MoveField[];
}

export function movesOf(state: GameState): Move[] {
  const moves = (state as { moves?: unknown }).moves;
  return Array.isArray(moves) ? (moves as Move[]) : [];
}

/** True when `value` is offered for `field` of `command` by the served legal moves (never guessed). */
export function offered(moves: Move[], command: string, field: string, value: unknown): boolean {
  return moves.some(
    (m) =>
      m.command === command &&
      m.fields.some(
        (f) =>
          f.name === field &&
          ((Array.isArray(f.options) && f.options.some((o) => o === value)) ||
            (Array.isArray(f.items) && f.items.some((o) => o === value)) ||
            (f.kind === "integer" && typeof value === "number")),
      ),
  );
}

/** The first (command, field) among `wants` that offers `value`: what a click on that thing does. */
export function pickFor(
  moves: Move[],
  wants: ReadonlyArray<readonly [string, string]>,
  value: unknown,
): readonly [string, string] | null {
  for (const w of wants) {
    if (offered(moves, w[0], w[1], value)) return w;
  }
  return null;
}

export interface Pickable {
  moves: Move[];
  pick?: (command: string, field: string, value: unknown) => void;
  replay: boolean;
}

export type PickAttrs = Omit<JSX.HTMLAttributes<HTMLElement>, "ref"> & { "data-pick"?: string };

/** Props that make a drawn thing a button filling a move's field when (and only when) the moves offer it. */
export function clickable(
  p: Pickable,
  wants: ReadonlyArray<readonly [string, string]>,
  value: unknown,
  label: string,
  idleRole: JSX.AriaRole | null = "img",
): PickAttrs {
  const hit = p.replay || !p.pick ? null : pickFor(p.moves, wants, value);
  if (!hit) return idleRole ? { role: idleRole, "aria-label": label } : {};
  const go = () => p.pick?.(hit[0], hit[1], value);
  return {
    role: "button",
    tabIndex: 0,
    "aria-label": `${label}: choose for ${hit[0]} ${hit[1]}`,
    "data-pick": `${hit[0]}.${hit[1]}`,
    onClick: go,
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        go();
      }
    },
  };
}

/** The accessible name of a drawn thing: its visible text first (WCAG 2.5.3, "label in name"), then what a
 * click on it does or what it is (the label `clickable` gave). */
export function named(visible: string, attrs: PickAttrs | undefined, fallback: string): string {
  const given = attrs?.["aria-label"] as string | undefined;
  if (!given) return fallback.startsWith(visible) ? fallback : `${visible}, ${fallback}`;
  return given.startsWith(visible) ? given : `${visible}, ${given}`;
}

/** Joins the class names that are set. */
export function cx(...names: Array<string | false | null | undefined>): string {
  return names.filter(Boolean).join(" ");
}

/** Each seat's name for people (the game resource's display names), by seat number. */
export function seatNames(game: Game | null | undefined, count = 0): string[] {
  const names: string[] = [];
  for (const p of game?.players ?? []) names[p.seat] = p.display_name || p.player || `seat ${p.seat}`;
  const n = Math.max(count, names.length);
  for (let s = 0; s < n; s++) if (names[s] === undefined) names[s] = `seat ${s}`;
  return names;
}

export function nameOf(names: readonly string[] | undefined, seat: number | null | undefined): string {
  if (seat === null || seat === undefined) return "nobody";
  return names?.[seat] ?? `seat ${seat}`;
}

export function money(value: number): string {
  return `$${value.toLocaleString("en-US")}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return (
    <span class={`seat-badge seat-badge-${kind}`} data-badge={kind}>
      {children}
    </span>
  );
}

/** A face-down pile (deck, stash, hand) drawn as stacked backs with its count written on it. */
export function Pile({ count, label, kind }: { count: number; label: string; kind: string }) {
  return (
    <span class={cx("pile", `pile-${kind}`, count === 0 && "pile-empty")} data-pile={kind} data-count={count}>
      <span class="card card-back" aria-hidden="true" />
      <span class="pile-count">
        {label}: {count}
      </span>
    </span>
  );
}

export function CardBack({ label }: { label: string }) {
  return <span class="card card-back" role="img" aria-label={label} data-face="down" />;
}

/** The seats' order as seen from the viewer's chair: the viewer first, then clockwise. */
export function fromViewer(n: number, viewer: number | null): number[] {
  const start = viewer ?? 0;
  return Array.from({ length: n }, (_, k) => (start + k) % n);
}

type TableEvent =
  | Schemas["TableOpenedEvent"]
  | Schemas["DeadlineSetEvent"]
  | Schemas["DeadlineMissedEvent"]
  | Schemas["DeadlineExtendedEvent"]
  | Schemas["DeadlinePassedEvent"]
  | Schemas["DeadlineNearEvent"]
  | Schemas["ReadySetEvent"]
  | Schemas["PlayerReturnedEvent"]
  | Schemas["AutopilotEngagedEvent"]
  | Schemas["AutopilotReleasedEvent"]
  | Schemas["SeatHandedOverEvent"]
  | Schemas["PlayerResignedEvent"]
  | Schemas["MessageSentEvent"]
  | Schemas["PauseVotedEvent"]
  | Schemas["GamePausedEvent"]
  | Schemas["GameResumedEvent"];

function when(iso: string | null | undefined): string {
  if (!iso) return "no deadline";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** The table's own events (every game shares them) in words; null when `type` is not one of them. */
export function describeTableEvent(event: FeedEvent["event"], names?: readonly string[]): string | null {
  const who = (s: number | null | undefined) => nameOf(names, s);
  const e = event as TableEvent;
  switch (e.type) {
    case "TableOpened":
      return "The table opened.";
    case "DeadlineSet":
      return e.due_at ? `The ${e.step} step is due ${when(e.due_at)}.` : `The ${e.step} step has no deadline.`;
    case "DeadlineMissed":
      return `The ${e.step} step's deadline passed with ${list((e.seats ?? []).map(who)) || "nobody"} still to play.`;
    case "DeadlineExtended":
      return `The ${e.step} step's deadline was extended to ${when(e.due_at)} (${e.reason}).`;
    case "DeadlinePassed":
      return `The ${e.step} step's deadline passed.`;
    case "DeadlineNear":
      return `The ${e.step} step is due soon (${when(e.due_at)}).`;
    case "ReadySet":
      return e.ready ? `${who(e.seat)} is ready.` : `${who(e.seat)} is no longer ready.`;
    case "PlayerReturned":
      return `${who(e.seat)} is back at the table.`;
    case "AutopilotEngaged":
      return `${who(e.seat)} is on autopilot (${e.reason}).`;
    case "AutopilotReleased":
      return `${who(e.seat)} took their seat back from the autopilot.`;
    case "SeatHandedOver":
      return `Seat ${e.seat} was handed over${e.player ? ` to ${e.player}` : ""}.`;
    case "PlayerResigned":
      return `${who(e.seat)} resigned.`;
    case "MessageSent": {
      const from = e.seat === null || e.seat === undefined ? "The table" : who(e.seat);
      const to = e.to && e.to.length ? ` to ${list(e.to.map(who))}` : "";
      if (e.text === null || e.text === undefined) return `${from} sent a private message${to}.`;
      return `${from}${to ? ` (privately${to})` : ""}: ${e.text}`;
    }
    case "PauseVoted":
      return e.pause ? `${who(e.seat)} voted to pause.` : `${who(e.seat)} voted to go on.`;
    case "GamePaused":
      return `The game was paused${e.by ? ` (${e.by})` : ""}.`;
    case "GameResumed":
      return `The game resumed${e.by ? ` (${e.by})` : ""}.`;
    default:
      return null;
  }
}
