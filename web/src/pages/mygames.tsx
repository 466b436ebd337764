// My games: the games I sit at, those waiting on me first, whose turn it is, the deadline counting down,
// messages I have not read (counted from the game's feed since I last opened its table, kept in this browser).
import { useEffect, useState } from "preact/hooks";

import { auth } from "../api/auth";
import { api, errorText } from "../api/client";
import type { Game, Schemas } from "../api/types";
import { Countdown, ErrorBox, Loading } from "../components/common";
import { gameUi } from "../games/registry";

const READ_KEY = "critters.read";

export function markRead(gameId: number, seq: number): void {
  try {
    const read = JSON.parse(localStorage.getItem(READ_KEY) ?? "{}") as Record<string, number>;
    if ((read[gameId] ?? 0) < seq) {
      read[gameId] = seq;
      localStorage.setItem(READ_KEY, JSON.stringify(read));
    }
  } catch {
    /* storage full or off: unread counts are a convenience */
  }
}

function lastRead(gameId: number): number {
  try {
    return (JSON.parse(localStorage.getItem(READ_KEY) ?? "{}") as Record<string, number>)[gameId] ?? 0;
  } catch {
    return 0;
  }
}

async function unread(game: Game): Promise<number> {
  let after = Math.max(lastRead(game.id), game.version - 500);
  let count = 0;
  for (let page = 0; page < 5 && after < game.version; page++) {
    const feed = await api.get<Schemas["FeedOutput"]>(`games/${game.id}/events?after=${after}&limit=100`);
    count += feed.events.filter((e) => e.event.type === "MessageSent" && (e.event as Schemas["MessageSentEvent"]).text !== null).length;
    if (!feed.more) break;
    after = feed.next_after;
  }
  return count;
}

export function MyGamesPage() {
  const [games, setGames] = useState<Game[] | null>(null);
  const [inbox, setInbox] = useState<Schemas["InboxItemOutput"][]>([]);
  const [counts, setCounts] = useState<Record<number, number>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const me = auth.session();
  useEffect(() => {
    let live = true;
    async function load() {
      try {
        const [page, box] = await Promise.all([api.get<Schemas["GamePageOutput"]>("me/games?page_size=50"), api.get<Schemas["InboxOutput"]>("me/inbox")]);
        if (!live) return;
        setGames(page.results);
        setInbox(box.games);
        for (const g of page.results.filter((g) => g.status === "running" || g.status === "over").slice(0, 20)) {
          unread(g)
            .then((n) => live && setCounts((old) => ({ ...old, [g.id]: n })))
            .catch(() => undefined);
        }
      } catch (e) {
        if (live) setProblem(errorText(e));
      }
    }
    void load();
    const t = setInterval(load, 15000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, []);
  if (problem) return <ErrorBox error={problem} />;
  if (!games) return <Loading what="Loading your games" />;
  const waitingOn = new Map(inbox.map((i) => [i.game_id, i]));
  const order = (g: Game) => (waitingOn.has(g.id) ? 0 : g.status === "running" ? 1 : g.status === "open" ? 2 : 3);
  const sorted = [...games].sort((a, b) => order(a) - order(b) || (a.deadline_at ?? "~").localeCompare(b.deadline_at ?? "~"));
  return (
    <section class="my-games">
      <h1>My games</h1>
      {sorted.length === 0 && (
        <p>
          You sit at no game yet. <a href="/play/">Find or create one in the lobby.</a>
        </p>
      )}
      <ul class="game-list">
        {sorted.map((g) => {
          const item = waitingOn.get(g.id);
          const turn = g.status === "running" ? (item ? "your move" : g.waiting_step ? `waiting on others (${g.waiting_step.replace(/_/g, " ")})` : "running") : g.status;
          const n = counts[g.id] ?? 0;
          return (
            <li key={g.id} class={`game-card${item ? " mine" : ""}`}>
              <a href={`/play/games/${g.id}`}>{g.name || `Game ${g.id}`}</a>{" "}
              <span class="meta">
                {gameUi(g.ruleset).title} · <strong>{turn}</strong>
              </span>{" "}
              {g.status === "running" && <Countdown due={item?.due_at ?? g.deadline_at} />}{" "}
              {n > 0 && <span class="badge">{n === 1 ? "1 unread message" : `${n} unread messages`}</span>}
              {g.status === "over" && <a href={`/play/games/${g.id}/replay`}>replay</a>}
            </li>
          );
        })}
      </ul>
      <p class="hint">Logged in as {me?.username}.</p>
    </section>
  );
}
