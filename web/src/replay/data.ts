// What the replay page reads, all from the public API (no private route): the game (GET /games/{id}), the
// verifier's verdict (GET /games/{id}/verify), the chart (GET /games/{id}/chart), the positions in pages of
// 100 (GET /games/{id}/states?after=N&limit=100: each the state just after event N+k with that event) and, on
// demand, the signed record (GET /games/{id}/record). The bearer token is the frame's (localStorage
// "critters.auth", web/src/api/auth.ts); a page without one asks the reader to log in.
import type { Game, Schemas, StateAt } from "../api/types";

export type Verdict = Schemas["VerdictOutput"];
export type Chart = Schemas["ChartOutput"];
export type StatesPage = Schemas["StatesOutput"];
/** One position: the state just after one event, with that event, as GET /states/{seq} would give it. */
export type Position = StateAt;

/** A page's positions, each tagged with the page's game (its `ruleset`, version, viewer). */
function positionsOf(page: StatesPage): Position[] {
  const { game, version, game_over, full, viewer } = page;
  const head = { game, version, game_over, full, viewer };
  switch (page.ruleset) {
    case "goodcritters":
      return page.states.map((s) => ({ ...head, ruleset: "goodcritters", ...s }));
    case "loose_triggers":
      return page.states.map((s) => ({ ...head, ruleset: "loose_triggers", ...s }));
    case "were_cats":
      return page.states.map((s) => ({ ...head, ruleset: "were_cats", ...s }));
  }
}

export class ReplayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function token(): string | null {
  try {
    const raw = localStorage.getItem("critters.auth");
    const value = raw ? (JSON.parse(raw) as { token?: unknown }) : null;
    return value && typeof value.token === "string" ? value.token : null;
  } catch {
    return null;
  }
}

export type Getter = <T>(path: string) => Promise<T>;

/** GET an API path (under /api/v1/) with the reader's token; a problem becomes a ReplayError in words. */
export const apiGet: Getter = async <T,>(path: string): Promise<T> => {
  const headers: Record<string, string> = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`/api/v1/${path}`, { headers, credentials: "omit" });
    } catch {
      throw new ReplayError(0, "network_error", "The server could not be reached.");
    }
    if (response.status === 429 && attempt < 3) {
      const wait = Math.min(Number(response.headers.get("Retry-After")) || 2, 30);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    if (response.ok) return (await response.json()) as T;
    type Shown = { code?: string; detail?: string; title?: string };
    const problem: Shown | null = await response.json().then(
      (body: unknown) => (body && typeof body === "object" ? (body as Shown) : null),
      () => null,
    );
    throw new ReplayError(
      response.status,
      problem?.code ?? `http_${response.status}`,
      problem?.detail || problem?.title || `The server answered ${response.status}.`,
    );
  }
};

export const PAGE = 100;

/** The positions of one game, fetched a page at a time and kept (a finished game never changes). */
export class Positions {
  private readonly items = new Map<number, Position>();
  private readonly pending = new Map<number, Promise<void>>();
  constructor(
    readonly gameId: number,
    private readonly get: Getter = apiGet,
  ) {}

  has(seq: number): boolean {
    return this.items.has(seq);
  }

  at(seq: number): Position | undefined {
    return this.items.get(seq);
  }

  /** Loads the page holding `seq` (pages start after multiples of PAGE). */
  load(seq: number): Promise<void> {
    const after = Math.floor((seq - 1) / PAGE) * PAGE;
    const known = this.pending.get(after);
    if (known) return known;
    const task = this.get<StatesPage>(`games/${this.gameId}/states?after=${after}&limit=${PAGE}`).then(
      (page) => {
        for (const item of positionsOf(page)) this.items.set(item.seq, item);
      },
      (error: unknown) => {
        this.pending.delete(after);
        throw error;
      },
    );
    this.pending.set(after, task);
    return task;
  }
}

export function loadGame(gameId: number, get: Getter = apiGet): Promise<Game> {
  return get<Game>(`games/${gameId}`);
}

export function loadVerdict(gameId: number, get: Getter = apiGet): Promise<Verdict> {
  return get<Verdict>(`games/${gameId}/verify`);
}

export function loadChart(gameId: number, get: Getter = apiGet): Promise<Chart> {
  return get<Chart>(`games/${gameId}/chart`);
}

export function loadRecord(gameId: number, get: Getter = apiGet): Promise<unknown> {
  return get<unknown>(`games/${gameId}/record`);
}
