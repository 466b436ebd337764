// The replay page (/play/games/<id>/replay): a finished game step by step on the same drawn table as the
// table page (GAMES[ruleset].Table, a full view: nothing is hidden once the game is over), with each event in
// words, the verifier's verdict, the game's chart and, one click away, the raw event and the signed record.
// Keys: ← → (one event), Home / End, PageUp / PageDown (ten events); or the buttons and the slider.
import type { JSX } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";

import type { Game, StateAt } from "../api/types";
import { EventWords, Guard } from "../components/common";
import { seatNames } from "../games/common";
import { gameUi } from "../games/registry";
import { ReplayChart } from "./Chart";
import { type Chart, type Getter, PAGE, type Position, Positions, ReplayError, type Verdict, apiGet, loadChart, loadGame, loadRecord, loadVerdict } from "./data";
import "./replay.css";

function errorWords(error: unknown): string {
  if (error instanceof ReplayError) {
    if (error.status === 401) return "Log in to see this replay (the API answers only with a token).";
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function VerdictBox({ verdict, error }: { verdict: Verdict | null; error: string | null }) {
  if (error) {
    return (
      <p class="verdict verdict-unknown" data-verdict="unknown" role="status">
        The verifier could not be asked: {error}
      </p>
    );
  }
  if (!verdict) {
    return (
      <p class="verdict verdict-unknown" data-verdict="pending" role="status">
        Verifying the record…
      </p>
    );
  }
  if (verdict.ok) {
    return (
      <p class="verdict verdict-ok" data-verdict="ok" role="status">
        <strong>Verified:</strong> the record holds. {verdict.events} events, {verdict.commands} commands re-decided by the rules,{" "}
        {verdict.commitments_opened} commitments opened, {verdict.random_picks} random picks re-derived from the seed
        {verdict.signed_by ? `; signed by key ${verdict.signed_by}` : ""}
        {verdict.fair === false ? "; NOT a fair game: an operator fixed its setup" : ""}. Checks passed: {verdict.checks.join(", ")}.
      </p>
    );
  }
  return (
    <p class="verdict verdict-bad" data-verdict="bad" role="alert">
      <strong>The record does not verify</strong>
      {verdict.error
        ? `: ${verdict.error.check} check failed${verdict.error.seq !== null ? ` at event ${verdict.error.seq}` : ""}${verdict.error.type ? ` (${verdict.error.type})` : ""}: ${verdict.error.message}`
        : "."}
    </p>
  );
}

function initialSeq(): number {
  const n = Number(window.location.hash.replace(/^#/, ""));
  return Number.isInteger(n) && n > 0 ? n : 1;
}

export function ReplayPage({ gameId, get = apiGet }: { gameId: number; get?: Getter }) {
  const [game, setGame] = useState<Game | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [verdictError, setVerdictError] = useState<string | null>(null);
  const [chart, setChart] = useState<Chart | null>(null);
  const [seq, setSeq] = useState<number>(initialSeq);
  const [, setLoaded] = useState(0);
  const [recordState, setRecordState] = useState<string>("");
  const positions = useMemo(() => new Positions(gameId, get), [gameId, get]);
  const shown = useRef<Position | undefined>(undefined);
  const version = game?.version ?? 0;
  const over = game?.status === "over";

  useEffect(() => {
    let live = true;
    loadGame(gameId, get).then(
      (g) => live && setGame(g),
      (e: unknown) => live && setFailure(errorWords(e)),
    );
    return () => {
      live = false;
    };
  }, [gameId, get]);

  useEffect(() => {
    if (!over) return;
    let live = true;
    loadVerdict(gameId, get).then(
      (v) => live && setVerdict(v),
      (e: unknown) => live && setVerdictError(errorWords(e)),
    );
    loadChart(gameId, get).then(
      (c) => live && setChart(c),
      () => live && setChart(null),
    );
    return () => {
      live = false;
    };
  }, [gameId, get, over]);

  const clamped = version ? Math.min(Math.max(seq, 1), version) : seq;
  useEffect(() => {
    if (!over || !version) return;
    for (const want of [clamped, Math.min(clamped + PAGE, version)]) {
      if (!positions.has(want)) {
        positions.load(want).then(
          () => setLoaded((n) => n + 1),
          (e: unknown) => setFailure(errorWords(e)),
        );
      }
    }
    if (window.location.hash !== `#${clamped}`) window.history.replaceState(null, "", `#${clamped}`);
  }, [clamped, over, version, positions]);

  useEffect(() => {
    const onHash = () => setSeq(initialSeq());
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const moves: Record<string, (s: number) => number> = {
        ArrowRight: (s) => s + 1,
        ArrowLeft: (s) => s - 1,
        PageDown: (s) => s + 10,
        PageUp: (s) => s - 10,
        Home: () => 1,
        End: () => Number.MAX_SAFE_INTEGER,
      };
      const step = moves[e.key];
      if (!step) return;
      e.preventDefault();
      setSeq((s) => Math.min(Math.max(step(s), 1), version || 1));
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [version]);

  if (failure) {
    return (
      <section class="replay" aria-labelledby="replay-title">
        <h1 id="replay-title">Replay of game {gameId}</h1>
        <p class="replay-error" role="alert">
          {failure}
        </p>
        <p>
          <a href="/play/login">Log in</a> · <a href={`/games/${gameId}/replay`}>the server's replay page</a>
        </p>
      </section>
    );
  }
  if (!game) {
    return (
      <section class="replay" aria-busy="true">
        <p>Loading the replay…</p>
      </section>
    );
  }
  const ui = gameUi(game.ruleset);
  const names = seatNames(game, game.players.length);
  if (!over) {
    return (
      <section class="replay" aria-labelledby="replay-title">
        <h1 id="replay-title">Replay: {game.name || `game ${game.id}`}</h1>
        <p role="status">
          This game is {game.status}: its replay opens when it is over (nothing of a running game is public).{" "}
          <a href={`/play/games/${game.id}`}>Go to its table</a>.
        </p>
      </section>
    );
  }
  const current = positions.at(clamped);
  if (current) shown.current = current;
  const pos = shown.current;
  const stateAt: StateAt | null = pos ? { ...pos, game: game.id, version, game_over: true, full: true, viewer: null } : null;
  const go = (s: number) => setSeq(Math.min(Math.max(s, 1), version));
  const recent: Position[] = [];
  for (let s = Math.max(1, clamped - 6); s <= clamped; s++) {
    const p = positions.at(s);
    if (p) recent.push(p);
  }
  const download = async () => {
    setRecordState("Fetching the record…");
    try {
      const record = await loadRecord(game.id, get);
      const url = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `game-${game.id}-record.json`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setRecordState("The record was downloaded: check it offline with `python -m games.audit.verify`.");
    } catch (e) {
      setRecordState(errorWords(e));
    }
  };
  const button = (arrow: string, text: string, to: number, disabled: boolean, key: string): JSX.Element => (
    <button type="button" data-control={key} disabled={disabled} onClick={() => go(to)}>
      {key === "first" || key === "prev" ? <span aria-hidden="true">{arrow} </span> : null}
      {text}
      {key === "next" || key === "last" ? <span aria-hidden="true"> {arrow}</span> : null}
    </button>
  );
  return (
    <section class="replay" aria-labelledby="replay-title" data-replay-game={game.id} data-ruleset={game.ruleset}>
      <h1 id="replay-title">
        Replay: <span data-game-name>{game.name || `game ${game.id}`}</span>
      </h1>
      <p class="replay-meta">
        {ui.title}, {names.length} players: {names.join(", ")}.
      </p>
      <VerdictBox verdict={verdict} error={verdictError} />
      <nav class="replay-controls" aria-label="Step through the game">
        {button("«", "First", 1, clamped <= 1, "first")}
        {button("‹", "Previous", clamped - 1, clamped <= 1, "prev")}
        <label class="replay-slider">
          <span>
            Event <strong data-replay-seq={clamped}>{clamped}</strong> of {version}
          </span>
          <input
            type="range"
            min={1}
            max={version}
            value={clamped}
            aria-label="Position in the game (event number)"
            onInput={(e) => go(Number((e.currentTarget as HTMLInputElement).value))}
          />
        </label>
        {button("›", "Next", clamped + 1, clamped >= version, "next")}
        {button("»", "Last", version, clamped >= version, "last")}
      </nav>
      <p class="replay-event" aria-live="polite" data-replay-event={pos?.seq ?? ""} data-loaded={current ? "true" : "false"}>
        <Guard what="the event" reset={clamped}>
          {pos ? (
            <>
              #{pos.seq}: <EventWords describe={ui.describeEvent} item={{ seq: pos.seq, event: pos.event }} names={names} />
            </>
          ) : (
            "Loading…"
          )}
        </Guard>
      </p>
      <Guard what="the table" reset={clamped}>
        {stateAt ? <ui.Table state={stateAt} game={game} viewerSeat={null} replay={true} /> : <p>Loading the table…</p>}
      </Guard>
      <div class="replay-lower">
        <section class="replay-log" aria-label="What happened just before">
          <h2>Events</h2>
          <ol>
            {recent.map((p) => (
              <li key={p.seq} value={p.seq} class={p.seq === clamped ? "current" : ""} aria-current={p.seq === clamped ? "step" : undefined}>
                <Guard what="the event">
                  <EventWords describe={ui.describeEvent} item={{ seq: p.seq, event: p.event }} names={names} />
                </Guard>
              </li>
            ))}
          </ol>
        </section>
        <section class="replay-chart-box" aria-label="Chart">
          <h2>Chart</h2>
          {chart ? <ReplayChart chart={chart} seq={clamped} names={names} /> : <p>Loading the chart…</p>}
        </section>
      </div>
      <section class="replay-audit" aria-label="For auditors">
        <h2>For auditors</h2>
        <details>
          <summary>Raw event #{pos?.seq ?? clamped} (JSON)</summary>
          <pre data-raw-event tabIndex={0}>{pos ? JSON.stringify(pos.event, null, 2) : ""}</pre>
        </details>
        <p>
          <button type="button" onClick={download} data-control="record">
            Download the signed record (JSON)
          </button>{" "}
          <span role="status">{recordState}</span>
        </p>
        <p>
          API: <code>GET /api/v1/games/{game.id}/record</code>, <code>/verify</code>, <code>/events?after=0</code>,{" "}
          <code>/states?after=0</code> (docs/AUDIT.md). <a href={`/games/${game.id}/replay`}>The server's own replay page</a>.
        </p>
      </section>
    </section>
  );
}
