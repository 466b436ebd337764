// The table page (/play/games/<id>): seats and who holds them, the deadline, the game's drawn table (from the
// registry), the legal moves as controls, table talk, pause/resume/vote, resign, take back a seat, hand-over,
// the ready flag, the event log; live over the stream (fetch + Last-Event-ID), every change from the API.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";

import { auth } from "../api/auth";
import { api, ApiError, errorText, idempotencyKey } from "../api/client";
import { actingOf, movesOf, type Move } from "../api/moves";
import { COMMANDS, BOT_STRATEGIES } from "../api/spec.gen";
import { GameStream, type FeedItem, type StreamStatus } from "../api/stream";
import type { Game, Schemas, ViewerState } from "../api/types";
import { Countdown, ErrorBox, EventWords, Guard, Loading, Notice } from "../components/common";
import { MoveForm, type Body, type Picked } from "../components/moveform";
import { words } from "../components/schemaform";
import { gameUi } from "../games/registry";
import { navigate } from "../router";
import { markRead } from "./mygames";

/** Commands the frame offers as its own controls (not in the moves list). */
const TABLE_COMMANDS = new Set(["SendMessage", "VotePause", "Resign", "TakeBackSeat", "SetReady"]);
const LOG_SIZE = 1000;

type ViewSeat = { seat: number; ready?: boolean; autopilot?: boolean; resigned?: boolean; player?: string };
type TableView = { seats?: ViewSeat[]; paused_at?: string | null; pause_votes?: number[]; step?: string };

function viewOf(state: ViewerState): TableView {
  return state.state as unknown as TableView;
}

export function seatName(game: Game, seat: number): string {
  const s = game.players.find((p) => p.seat === seat);
  if (!s) return `seat ${seat}`;
  return s.display_name || s.player || (s.bot ? `bot (${s.bot})` : `seat ${seat}`);
}

const END_WORDS: Record<string, string> = {
  game_over: "The game is over.",
  game_cancelled: "The game was cancelled.",
  token_revoked: "Your login was revoked (logged out elsewhere): the live updates stopped. Log in again to go on.",
  viewer_changed: "Your seat changed hands (or you took one): the live updates for your old view stopped.",
  game_not_visible: "You may no longer see this game.",
};

export function TablePage({ gameId }: { gameId: number }) {
  const [game, setGame] = useState<Game | null>(null);
  const [state, setState] = useState<ViewerState | null>(null);
  const [events, setEvents] = useState<FeedItem[]>([]);
  const [status, setStatus] = useState<StreamStatus>({ kind: "connecting" });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const [picked, setPicked] = useState<Picked | null>(null);
  const [streamKey, setStreamKey] = useState(0);
  const [seatNotice, setSeatNotice] = useState<string | null>(null);
  const streamRef = useRef<GameStream | null>(null);
  const refreshTimer = useRef<number | null>(null);

  const refresh = useCallback(async () => {
    try {
      const next = await api.get<ViewerState>(`games/${gameId}/state`);
      setState((old) => (old && old.version > next.version ? old : next));
      setGame(next.game);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setError(errorText(e));
    }
  }, [gameId]);

  const scheduleRefresh = useCallback(() => {
    if (refreshTimer.current !== null) return;
    refreshTimer.current = window.setTimeout(() => {
      refreshTimer.current = null;
      void refresh();
    }, 120);
  }, [refresh]);

  // the stream at once: its first message is the whole state (the game resource in it), so the table is drawn
  // after one round trip; an open game's lobby is followed by polling its resource below
  useEffect(() => {
    setError(null);
    const stream = new GameStream(gameId, {
      onState: (s) => {
        setState(s);
        setGame(s.game);
        // the log's recent past, read once (the stream brings everything after the snapshot)
        const after = Math.max(0, s.version - 60);
        if (s.version === 0) return;
        api
          .get<Schemas["FeedOutput"]>(`games/${gameId}/events?after=${after}&limit=60`)
          .then((feed) =>
            setEvents((old) => {
              const seen = new Set(old.map((e) => e.seq));
              const older = feed.events.filter((e) => e.seq <= s.version && !seen.has(e.seq));
              return [...older, ...old].sort((a, b) => a.seq - b.seq).slice(-LOG_SIZE);
            }),
          )
          .catch(() => undefined);
      },
      onEvent: (item) => {
        setEvents((old) => [...old, item].slice(-LOG_SIZE));
        scheduleRefresh();
      },
      onStatus: (next) => {
        setStatus(next);
        if (next.kind === "failed" && !stream.last) setError(next.why);
        // the seat changed hands (or this player took one): the stream spoke for the old viewer and ended;
        // say so, and follow the game afresh as whoever the player is now
        if (next.kind === "ended" && next.end.reason === "viewer_changed") {
          setSeatNotice(END_WORDS.viewer_changed ?? "Your seat changed.");
          window.setTimeout(() => setStreamKey((k) => k + 1), 300);
        }
      },
    });
    streamRef.current = stream;
    (window as unknown as { __gameStream?: GameStream }).__gameStream = stream;
    stream.start();
    return () => stream.stop();
  }, [gameId, streamKey]);

  // an open game: follow the lobby by polling its resource (no stream before the start)
  useEffect(() => {
    if (!game || game.status !== "open") return;
    const t = setInterval(() => {
      api.get<Game>(`games/${gameId}`).then(setGame).catch(() => undefined);
    }, 2000);
    return () => clearInterval(t);
  }, [gameId, game?.status]);

  async function act<T>(what: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setActionError(null);
    try {
      return await what();
    } catch (e) {
      setActionError(errorText(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  async function command(path: string, body: Body): Promise<void> {
    setBusy(true);
    setActionError(null);
    try {
      const next = await api.post<ViewerState>(`games/${gameId}/commands/${path}`, body, {
        headers: { "Idempotency-Key": idempotencyKey() },
      });
      setState((old) => (old && old.version > next.version ? old : next));
      setGame(next.game);
    } finally {
      setBusy(false);
    }
  }

  async function simple(path: string, body: Body = {}) {
    await act(() => command(path, body));
  }

  // what is shown is read: My games counts unread messages after it
  useEffect(() => {
    const last = events[events.length - 1];
    if (last) markRead(gameId, last.seq);
  }, [events, gameId]);

  if (error) return <ErrorBox error={`This game could not be shown: ${error}`}><p><a href="/play/">Back to the lobby</a></p></ErrorBox>;
  if (!game || !state) return <Loading what="Loading the table" />;
  const me = auth.session();
  const ui = gameUi(game.ruleset);
  if (game.status === "open") return <OpenGame game={game} setGame={setGame} onSeat={() => setStreamKey((k) => k + 1)} />;

  const view = viewOf(state);
  const viewer = state.viewer;
  const legal = new Set<string>(state.legal_commands);
  const acting = actingOf(state);
  const paused = acting?.paused ?? Boolean(view.paused_at);
  const waiting = state.waiting;
  const dueAt = acting ? acting.due_at : waiting?.due_at;
  const options = game.options as unknown as { pause_by?: string };
  const isCreator = me?.username === game.creator;
  const mySeat = viewer === null ? undefined : view.seats?.find((s) => s.seat === viewer);
  const moves = movesOf(state);
  const labels: Record<string, string> = {};
  game.players.forEach((p) => (labels[`seat:${p.seat}`] = seatName(game, p.seat)));

  return (
    <div class="table-page" data-version={state.version} data-over={state.over ? "true" : "false"} data-step={acting?.step_no ?? ""}>
      <header class="table-head">
        <h1>
          {game.name || `Game ${game.id}`} <small>({ui.title})</small>
        </h1>
        <p class="status-line">
          <span>{state.over ? "Game over" : paused ? "Paused" : waiting ? `Step: ${words(waiting.step)}` : "Running"}</span>{" "}
          {!state.over && <Countdown due={dueAt} paused={paused} />}{" "}
          <StreamBadge status={status} />
        </p>
        {(acting?.you ?? waiting?.you) && !paused && <Notice kind="warn">It is your move.</Notice>}
        {status.kind === "ended" && (
          <Notice kind="warn">
            {END_WORDS[status.end.reason] ?? "The live updates ended."}{" "}
            {status.end.reason === "viewer_changed" && (
              <button type="button" onClick={() => setStreamKey((k) => k + 1)}>
                Show the game as I may see it now
              </button>
            )}
            {status.end.reason === "token_revoked" && <a href={`/play/login?next=/play/games/${gameId}`}>Log in</a>}
            {(status.end.reason === "game_over" || state.over) && <a href={`/play/games/${gameId}/replay`}>Open the replay</a>}
          </Notice>
        )}
        {status.kind === "failed" && <Notice kind="warn">{status.why}</Notice>}
        {seatNotice && (
          <Notice kind="warn">
            {seatNotice} The page now shows the game as you may see it.{" "}
            <button type="button" class="link" onClick={() => setSeatNotice(null)}>
              Dismiss
            </button>
          </Notice>
        )}
      </header>

      <div class="table-grid">
        <section class="seats" aria-labelledby="seats-h">
          <h2 id="seats-h">Seats</h2>
          <ul>
            {game.players.map((p) => {
              const vs = view.seats?.find((s) => s.seat === p.seat);
              const flags = [
                p.seat === viewer ? "you" : "",
                waiting?.seats.includes(p.seat) ? "to act" : "",
                vs?.ready ? "ready" : "",
                vs?.autopilot ? "on autopilot" : "",
                vs?.resigned ? "resigned" : "",
                p.bot ? `bot: ${p.bot}` : "",
                p.player === game.creator ? "creator" : "",
                view.pause_votes?.includes(p.seat) ? "voted to pause" : "",
              ].filter(Boolean);
              return (
                <li key={p.seat} class={waiting?.seats.includes(p.seat) ? "acting" : ""}>
                  <span class="seat-no">Seat {p.seat}</span> <span class="seat-name">{seatName(game, p.seat)}</span>
                  {p.player && p.display_name !== p.player && <span class="seat-user"> @{p.player}</span>}
                  {flags.length > 0 && <span class="flags"> ({flags.join(", ")})</span>}
                </li>
              );
            })}
          </ul>
          {state.over && state.scores && (
            <p>
              Scores: {state.scores.map((s, i) => `${seatName(game, i)} ${s}`).join(", ")}
            </p>
          )}
        </section>

        <section class="drawn" aria-label="The table">
          <Guard what="the table" reset={state.version}>
            <ui.Table
              state={state}
              game={game}
              viewerSeat={viewer}
              replay={false}
              pick={(c, f, v) => setPicked((old) => ({ command: c, field: f, value: v, n: (old?.n ?? 0) + 1 }))}
            />
          </Guard>
        </section>

        <section class="actions" aria-labelledby="moves-h">
          <h2 id="moves-h">Your moves</h2>
          <ErrorBox error={actionError} />
          {viewer === null && <p>You watch this game (no seat).</p>}
          {state.over && <p>The game is over: nothing more to play.</p>}
          {viewer !== null && !state.over && (
            <>
              <Guard what="your moves" reset={state.version}>
                <MovesList moves={moves.filter((m) => !TABLE_COMMANDS.has(m.command))} labels={labels} busy={busy} picked={picked} onSend={(m, body) => command(m.path, body)} />
              </Guard>
              <div class="table-controls">
                {legal.has("SetReady") && (
                  <button type="button" disabled={busy} onClick={() => simple("set-ready", { ready: !mySeat?.ready })}>
                    {mySeat?.ready ? "Not ready yet" : "I'm ready"}
                  </button>
                )}
                {legal.has("TakeBackSeat") && (
                  <button type="button" disabled={busy} onClick={() => simple("take-back-seat")}>
                    Take back my seat
                  </button>
                )}
                {options.pause_by === "vote" && legal.has("VotePause") && (
                  <button type="button" disabled={busy} onClick={() => simple("vote-pause", { pause: !paused })}>
                    {paused ? "Vote to resume" : "Vote to pause"}
                  </button>
                )}
                {legal.has("Resign") && (
                  <button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() => {
                      if (window.confirm("Resign from this game? A bot will not take your seat back for you.")) void simple("resign");
                    }}
                  >
                    Resign
                  </button>
                )}
              </div>
            </>
          )}
          {isCreator && !state.over && options.pause_by !== "vote" && (
            <div class="table-controls">
              {paused ? (
                <button type="button" disabled={busy} onClick={() => act(async () => { setGame(await api.post<Game>(`games/${gameId}/resume`)); await refresh(); })}>
                  Resume the game
                </button>
              ) : (
                <button type="button" disabled={busy} onClick={() => act(async () => { setGame(await api.post<Game>(`games/${gameId}/pause`)); await refresh(); })}>
                  Pause the game
                </button>
              )}
            </div>
          )}
          {isCreator && !state.over && <HandOver game={game} view={view} onDone={refresh} />}
        </section>

        <Talk game={game} events={events} viewer={viewer} canSend={legal.has("SendMessage")} busy={busy} onSend={(body) => command("send-message", body)} />

        <section class="log" aria-labelledby="log-h">
          <h2 id="log-h">What happened</h2>
          <Guard what="the log" reset={state.version}>
            <ol class="events">
              {events.map((item) => (
                <li key={item.seq} data-seq={item.seq}>
                  <EventWords describe={ui.describeEvent} item={item} />
                </li>
              ))}
            </ol>
          </Guard>
        </section>
      </div>
    </div>
  );
}

function StreamBadge({ status }: { status: StreamStatus }) {
  const text =
    status.kind === "live"
      ? "live"
      : status.kind === "connecting"
        ? "connecting…"
        : status.kind === "retrying"
          ? `reconnecting in ${status.seconds} s`
          : status.kind === "ended"
            ? "updates ended"
            : "no live updates";
  return (
    <span class={`stream ${status.kind}`} data-stream={status.kind} title={status.kind === "retrying" ? status.why : undefined}>
      ({text})
    </span>
  );
}

function MovesList({ moves, labels, busy, picked, onSend }: { moves: Move[]; labels: Record<string, string>; busy: boolean; picked: Picked | null; onSend: (m: Move, body: Body) => Promise<void> }) {
  if (moves.length === 0) return <p>Nothing to do right now.</p>;
  const many = moves.length > 12;
  const forms = moves.map((m, i) => <MoveForm key={`${m.command}-${i}-${JSON.stringify(m.fields)}`} move={m} title={words(m.command.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase())} labels={labels} busy={busy} picked={picked} onSend={onSend} />);
  if (!many) return <div class="moves">{forms}</div>;
  // many variants: one disclosure per command
  const byCommand = new Map<string, typeof forms>();
  moves.forEach((m, i) => byCommand.set(m.command, [...(byCommand.get(m.command) ?? []), forms[i]!]));
  return (
    <div class="moves">
      {[...byCommand.entries()].map(([c, list]) => (
        <details key={c} open={byCommand.size === 1}>
          <summary>
            {words(c.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase())} ({list.length} ways)
          </summary>
          {list}
        </details>
      ))}
    </div>
  );
}

function Talk({ game, events, viewer, canSend, busy, onSend }: { game: Game; events: FeedItem[]; viewer: number | null; canSend: boolean; busy: boolean; onSend: (body: Body) => Promise<void> }) {
  const [text, setText] = useState("");
  const [to, setTo] = useState<number[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const messages = events.filter((e) => e.event.type === "MessageSent") as (FeedItem & { event: Schemas["MessageSentEvent"] })[];
  const max = (COMMANDS.SendMessage?.schema.properties?.text?.maxLength as number | undefined) ?? 2000;
  return (
    <section class="talk" aria-labelledby="talk-h">
      <h2 id="talk-h">Table talk</h2>
      <ol class="messages">
        {messages.map((m) => (
          <li key={m.seq} class={m.event.to ? "private" : ""}>
            <strong>{m.event.seat === null ? "table" : seatName(game, m.event.seat)}</strong>
            {m.event.to ? ` (to ${m.event.to.map((s) => (s === null ? "?" : seatName(game, s))).join(", ")})` : ""}: <span class="message-text">{m.event.text ?? "(private)"}</span>
          </li>
        ))}
        {messages.length === 0 && <li class="none">No messages yet.</li>}
      </ol>
      {canSend && viewer !== null && (
        <form
          class="send-message"
          onSubmit={async (e) => {
            e.preventDefault();
            if (!text.trim()) return setProblem("Write a message first.");
            try {
              await onSend(to.length ? { text, to } : { text });
              setText("");
              setProblem(null);
            } catch (err) {
              setProblem(errorText(err));
            }
          }}
        >
          <label for="message-text">Message</label>
          <textarea id="message-text" name="text" rows={2} maxLength={max} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
          <fieldset>
            <legend>To (none ticked: everyone)</legend>
            {game.players
              .filter((p) => p.seat !== viewer)
              .map((p) => (
                <label key={p.seat} class="check">
                  <input
                    type="checkbox"
                    checked={to.includes(p.seat)}
                    onChange={(e) => {
                      const on = (e.currentTarget as HTMLInputElement).checked;
                      setTo(on ? [...to, p.seat] : to.filter((s) => s !== p.seat));
                    }}
                  />
                  {seatName(game, p.seat)}
                </label>
              ))}
          </fieldset>
          <button type="submit" disabled={busy}>
            {to.length ? "Send privately" : "Send to the table"}
          </button>
          {problem && <p class="error" role="alert">{problem}</p>}
        </form>
      )}
    </section>
  );
}

function HandOver({ game, view, onDone }: { game: Game; view: TableView; onDone: () => Promise<void> }) {
  const [seat, setSeat] = useState<string>("");
  const [to, setTo] = useState<"bot" | "player">("bot");
  const [strategy, setStrategy] = useState(BOT_STRATEGIES[0] ?? "sensible");
  const [player, setPlayer] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const candidates = game.players.filter((p) => p.player && p.player !== game.creator);
  const onAutopilot = new Set((view.seats ?? []).filter((s) => s.autopilot).map((s) => s.seat));
  if (candidates.length === 0) return null;
  return (
    <details class="hand-over">
      <summary>Hand over a seat (creator)</summary>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setProblem(null);
          setMessage(null);
          if (seat === "") return setProblem("Choose a seat.");
          try {
            const body = to === "bot" ? { to, strategy } : { to, player };
            await api.post(`games/${game.id}/seats/${seat}/hand-over`, body);
            setMessage(to === "bot" ? "The seat is a bot's now." : `The seat was offered to ${player}.`);
            await onDone();
          } catch (err) {
            setProblem(errorText(err));
          }
        }}
      >
        <p class="hint">A seat on autopilot, or one a step has waited on for 7 days, may be handed over.</p>
        <label for="ho-seat">Seat</label>
        <select id="ho-seat" value={seat} onChange={(e) => setSeat((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">choose…</option>
          {candidates.map((p) => (
            <option key={p.seat} value={String(p.seat)}>
              {seatName(game, p.seat)}
              {onAutopilot.has(p.seat) ? " (on autopilot)" : ""}
            </option>
          ))}
        </select>
        <label for="ho-to">To</label>
        <select id="ho-to" value={to} onChange={(e) => setTo((e.currentTarget as HTMLSelectElement).value as "bot" | "player")}>
          <option value="bot">a bot</option>
          <option value="player">another player</option>
        </select>
        {to === "bot" ? (
          <>
            <label for="ho-strategy">Bot</label>
            <select id="ho-strategy" value={strategy} onChange={(e) => setStrategy((e.currentTarget as HTMLSelectElement).value)}>
              {BOT_STRATEGIES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </>
        ) : (
          <>
            <label for="ho-player">Username</label>
            <input id="ho-player" value={player} onInput={(e) => setPlayer((e.currentTarget as HTMLInputElement).value)} />
          </>
        )}
        <button type="submit">Hand over</button>
        {problem && <p class="error" role="alert">{problem}</p>}
        {message && <p role="status">{message}</p>}
      </form>
    </details>
  );
}

/** A game still in its lobby: seats, join, leave, bots, start, cancel. */
function OpenGame({ game, setGame, onSeat }: { game: Game; setGame: (g: Game) => void; onSeat: () => void }) {
  const me = auth.session();
  const [problem, setProblem] = useState<string | null>(null);
  const [strategy, setStrategy] = useState(BOT_STRATEGIES[0] ?? "sensible");
  const seated = game.players.some((p) => p.player === me?.username);
  const isCreator = me?.username === game.creator;
  async function go(path: string, body: unknown = {}) {
    setProblem(null);
    try {
      const next = await api.post<Game>(`games/${game.id}/${path}`, body);
      if (path === "cancel") return navigate("/play/");
      setGame(next);
      if (path === "join" || path === "leave") onSeat(); // follow the game as the new viewer
    } catch (e) {
      setProblem(errorText(e));
    }
  }
  const ui = gameUi(game.ruleset);
  return (
    <section class="open-game">
      <h1>
        {game.name || `Game ${game.id}`} <small>({ui.title})</small>
      </h1>
      <p>
        Waiting for players: {game.taken} of {game.seats} seats taken. Created by {game.creator}.
      </p>
      <ul>
        {game.players.map((p) => (
          <li key={p.seat}>
            Seat {p.seat}: {p.display_name || p.player || `bot (${p.bot})`}
            {p.bot ? ` (bot: ${p.bot})` : ""}
          </li>
        ))}
      </ul>
      <div class="table-controls">
        {!seated && game.taken < game.seats && (
          <button type="button" onClick={() => go("join")}>
            Join this game
          </button>
        )}
        {seated && !isCreator && (
          <button type="button" onClick={() => go("leave")}>
            Leave
          </button>
        )}
        {game.taken < game.seats && (
          <span class="inline">
            <label for="bot-strategy">Bot</label>
            <select id="bot-strategy" value={strategy} onChange={(e) => setStrategy((e.currentTarget as HTMLSelectElement).value)}>
              {BOT_STRATEGIES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
            <button type="button" onClick={() => go("bots", { strategy })}>
              Add a bot
            </button>
          </span>
        )}
        {isCreator && (
          <>
            <button type="button" onClick={() => go("start")}>
              Start now
            </button>
            <button type="button" class="danger" onClick={() => go("cancel")}>
              Cancel the game
            </button>
          </>
        )}
      </div>
      <ErrorBox error={problem} />
    </section>
  );
}
