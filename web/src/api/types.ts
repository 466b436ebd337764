// Names for the generated spec types (src/api/schema.d.ts, made by `npm run types` from the served OpenAPI
// spec, never written by hand). Everything the page sends or reads is typed from here.
import type { components, paths } from "./schema";

export type { components, paths };
export type Schemas = components["schemas"];

/** GET /games/{id}/state (and every command's 200): the viewer's state. */
export type ViewerState = Schemas["ViewerStateOutput"];
export type Ruleset = Schemas["RulesetEnum"];
/** A game's events as the viewer may see them: its ruleset's `{Name}Event` union (by `type`). */
export type EventOf<R extends Ruleset> = Extract<Schemas["FeedItemOutput"], { ruleset: R }>["event"];
/** GET /games/{id}/states/{seq}: the state just after one event (replays), one member per game by `ruleset`. */
export type StateAt = Schemas["StateAtOutput"];
/** What a table draws: a live state or a replay's state at one seq (tell them apart with `isLive`). */
export type GameState = ViewerState | StateAt;
/** The game resource (players, seats, options, status). */
export type Game = Schemas["GameOutput"];
/** One event as the viewer may see it, with its seq (a feed/stream item, or a record event's `{seq, event: data}`). */
export type FeedEvent = Pick<Schemas["FeedItemOutput"], "seq" | "event">;
export type GameEvent = Schemas["Event"];
export type GameView = Schemas["GameView"];
export type Problem = Schemas["Problem"];

export function isLive(state: GameState): state is ViewerState {
  return "legal_commands" in state;
}
