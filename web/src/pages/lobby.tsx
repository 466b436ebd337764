// The lobby: games of each game (open by default), filters, join, and a form to create a game with every
// option of its ruleset (the form is built from the spec's option schemas; the server's problem in words).
import { useEffect, useState } from "preact/hooks";

import { auth } from "../api/auth";
import { api, ApiError, errorText } from "../api/client";
import { BOT_STRATEGIES, OPTION_SCHEMAS, SEAT_RANGES } from "../api/spec.gen";
import type { Game, Schemas } from "../api/types";
import { Countdown, ErrorBox, Loading } from "../components/common";
import { checkObject, prune, SchemaObject, type Value } from "../components/schemaform";
import { gameUi } from "../games/registry";
import { navigate } from "../router";

const RULESETS = Object.keys(OPTION_SCHEMAS);

export function LobbyPage() {
  const [ruleset, setRuleset] = useState("");
  const [status, setStatus] = useState("open");
  const [freeSeats, setFreeSeats] = useState(false);
  const [games, setGames] = useState<Game[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const me = auth.session();

  async function load(url?: string) {
    setProblem(null);
    const params = new URLSearchParams();
    if (ruleset) params.set("ruleset", ruleset);
    if (status) params.set("status", status);
    if (freeSeats) params.set("free_seats", "true");
    params.set("page_size", "30");
    try {
      const page = await api.get<Schemas["GamePageOutput"]>(url ?? `games?${params}`);
      setGames(url ? [...(games ?? []), ...page.results] : page.results);
      setNext(page.next ? new URL(page.next, location.href).pathname + new URL(page.next, location.href).search : null);
    } catch (e) {
      setProblem(errorText(e));
    }
  }
  useEffect(() => void load(), [ruleset, status, freeSeats]);

  async function join(game: Game) {
    try {
      await api.post(`games/${game.id}/join`, {});
      navigate(`/play/games/${game.id}`);
    } catch (e) {
      setProblem(`Could not join ${game.name || `game ${game.id}`}: ${errorText(e)}`);
    }
  }

  return (
    <section class="lobby">
      <h1>Lobby</h1>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label for="filter-ruleset">Game</label>
        <select id="filter-ruleset" value={ruleset} onChange={(e) => setRuleset((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">all games</option>
          {RULESETS.map((r) => (
            <option key={r} value={r}>
              {gameUi(r).title}
            </option>
          ))}
        </select>
        <label for="filter-status">Status</label>
        <select id="filter-status" value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
          <option value="open">open (waiting for players)</option>
          <option value="running">running</option>
          <option value="over">over</option>
          <option value="">any</option>
        </select>
        <label class="check">
          <input type="checkbox" checked={freeSeats} onChange={(e) => setFreeSeats((e.currentTarget as HTMLInputElement).checked)} />
          with free seats
        </label>
      </form>
      <ErrorBox error={problem} />
      {games === null && !problem && <Loading what="Loading games" />}
      {games !== null && games.length === 0 && <p>No game matches. Create one below.</p>}
      {games !== null && games.length > 0 && (
        <ul class="game-list">
          {games.map((g) => {
            const seated = g.players.some((p) => p.player === me?.username);
            return (
              <li key={g.id} class="game-card">
                <a href={`/play/games/${g.id}`}>{g.name || `Game ${g.id}`}</a>{" "}
                <span class="meta">
                  {gameUi(g.ruleset).title} · {g.taken}/{g.seats} seats · {g.status} · by {g.creator}
                </span>
                {g.status === "running" && g.deadline_at && <Countdown due={g.deadline_at} />}
                {g.status === "open" && !seated && g.taken < g.seats && (
                  <button type="button" onClick={() => join(g)} aria-label={`Join ${g.name || `game ${g.id}`}`}>
                    Join
                  </button>
                )}
                {g.status === "over" && <a href={`/play/games/${g.id}/replay`}>replay</a>}
              </li>
            );
          })}
        </ul>
      )}
      {next && (
        <button type="button" onClick={() => load(next)}>
          More games
        </button>
      )}
      <CreateGame />
    </section>
  );
}

function CreateGame() {
  const [ruleset, setRuleset] = useState(RULESETS[0] ?? "goodcritters");
  const [name, setName] = useState("");
  const range = SEAT_RANGES[ruleset] ?? [2, 8];
  const [seats, setSeats] = useState<number>(range[0]);
  const [bots, setBots] = useState<string[]>([]);
  const [spectators, setSpectators] = useState(true);
  const [options, setOptions] = useState<Record<string, Value>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const schema = OPTION_SCHEMAS[ruleset];

  useEffect(() => {
    setOptions({});
    setErrors({});
    setSeats((s) => Math.min(Math.max(s, range[0]), range[1]));
  }, [ruleset]);

  async function submit(e: Event) {
    e.preventDefault();
    setProblem(null);
    const local = schema ? checkObject(schema, options) : {};
    if (seats < range[0] || seats > range[1]) local.seats = `${gameUi(ruleset).title} is for ${range[0]} to ${range[1]} players.`;
    if (bots.length > seats - 1) local.bots = `At most ${seats - 1} bots (you take a seat).`;
    setErrors(local);
    if (Object.keys(local).length) {
      setProblem("Some options need fixing (see below).");
      return;
    }
    setBusy(true);
    try {
      const body = { ruleset, name, seats, options: prune(options), allow_spectators: spectators, join: true, bots } as unknown as Schemas["GameCreateInputRequest"];
      const game = await api.post<Game>("games", body);
      navigate(`/play/games/${game.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.problem) {
        const fieldErrors: Record<string, string> = {};
        for (const [k, v] of Object.entries(err.problem.errors ?? {})) fieldErrors[k.replace(/^options\./, "")] = v.join(" ");
        const key = (err.problem.details as { key?: string } | undefined)?.key;
        if (key) fieldErrors[key] = err.problem.detail;
        setErrors(fieldErrors);
      }
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="create" aria-labelledby="create-h">
      <h2 id="create-h">Create a game</h2>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="create-ruleset">Game</label>
          <select id="create-ruleset" value={ruleset} onChange={(e) => setRuleset((e.currentTarget as HTMLSelectElement).value)}>
            {RULESETS.map((r) => (
              <option key={r} value={r}>
                {gameUi(r).title}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="create-name">Name</label>
          <input id="create-name" maxLength={100} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="create-seats">
            Seats ({range[0]}–{range[1]})
          </label>
          <input
            id="create-seats"
            type="number"
            min={range[0]}
            max={range[1]}
            value={seats}
            aria-invalid={errors.seats ? true : undefined}
            onInput={(e) => setSeats(Number((e.currentTarget as HTMLInputElement).value))}
          />
          {errors.seats && <small class="error">{errors.seats}</small>}
        </div>
        <fieldset class="field">
          <legend>Bots to seat now ({bots.length})</legend>
          {BOT_STRATEGIES.map((s) => (
            <button key={s} type="button" onClick={() => setBots([...bots, s])}>
              Add a {s} bot
            </button>
          ))}
          {bots.length > 0 && (
            <button type="button" onClick={() => setBots([])}>
              No bots
            </button>
          )}
          {bots.length > 0 && <p>Bots: {bots.join(", ")}</p>}
          {errors.bots && <small class="error">{errors.bots}</small>}
        </fieldset>
        <label class="check">
          <input type="checkbox" checked={spectators} onChange={(e) => setSpectators((e.currentTarget as HTMLInputElement).checked)} />
          Allow spectators
        </label>
        {schema && (
          <details class="options">
            <summary>Options of {gameUi(ruleset).title} (empty: the default)</summary>
            <SchemaObject schema={schema} value={options} errors={errors} onChange={setOptions} />
          </details>
        )}
        <button type="submit" disabled={busy}>
          Create the game
        </button>
        <ErrorBox error={problem} />
      </form>
    </section>
  );
}
