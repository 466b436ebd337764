// The one interface between the frame (everything in web/ but games/ and replay/) and the per-game drawings.
// The frame finds a game's drawing by the game's `ruleset` slug and renders <Table .../> inside the table page
// (live: viewer's state from GET /state and the stream) and the replay page (state from GET /states/{seq}).
// The frame draws seats, deadline, moves, talk and the event log itself; a Table draws the table only.
import type { JSX } from "preact";

import type { FeedEvent, Game, GameState } from "../api/types";
import { goodcritters } from "./goodcritters";
import { looseTriggers } from "./loose_triggers";
import { wereCats } from "./were_cats";
import { placeholderUi } from "./placeholder";

export interface TableProps {
  /** The /state response (live) or the /states/{seq} response (replay): see `isLive` in api/types. */
  state: GameState;
  /** The game resource (players, seats, options, status). */
  game: Game;
  /** The viewer's seat; null for a spectator (and for a replay's full view). */
  viewerSeat: number | null;
  /** True on a replay page: draw only, offer nothing. */
  replay: boolean;
  /** Optional: a click on the drawn table fills a move's field (`command` as in `moves[].command`). */
  pick?: (command: string, field: string, value: unknown) => void;
}

export interface GameUi {
  /** The ruleset slug (`GameOutput.ruleset`). */
  slug: string;
  /** The game's name for people. */
  title: string;
  /** Draws the table (SVG or HTML+CSS; text always as text, never as markup). */
  Table: (p: TableProps) => JSX.Element;
  /** One event in words, for the event log ("alice played the Cat"). */
  /** One event in words (for the event log and the replay). `names`: each seat's name by seat (seatNames(game)). */
  describeEvent: (event: FeedEvent, names?: readonly string[]) => string;
}

export const GAMES: Record<string, GameUi> = {
  [goodcritters.slug]: goodcritters,
  [looseTriggers.slug]: looseTriggers,
  [wereCats.slug]: wereCats,
};

/** The game's UI, or a plain fallback for a ruleset this build does not know (never a blank page). */
export function gameUi(slug: string): GameUi {
  return GAMES[slug] ?? placeholderUi(slug, slug);
}
