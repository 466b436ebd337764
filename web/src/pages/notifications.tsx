// What a player is told and where (issue #23, for people rather than programs): the mail address (verified by a
// mailed link), what is mailed and how often, muted games, and chat messages (a chat's incoming webhook).
import { useEffect, useState } from "preact/hooks";

import { api, errorText } from "../api/client";
import type { Schemas } from "../api/types";
import { ErrorBox, Loading, Notice } from "../components/common";

type Settings = Schemas["NotificationSettingsOutput"];
type Email = Schemas["EmailOutput"];
type MailKind = Settings["kinds"][number];
type Delivery = Settings["delivery"];
type Webhook = Schemas["WebhookOutput"];
type HookKind = Webhook["kind"];
type HookEvent = Webhook["events"][number];
type Game = Schemas["GameOutput"];

/** Every kind of mail the server offers, in words (a kind added to the API fails the type check here). */
const KIND_WORDS: Record<MailKind, string> = {
  your_turn: "It's my turn to move",
  deadline_near: "My move is due soon (the game's deadline warning)",
  autopilot: "I was put on autopilot because my time ran out",
  game_started: "A game I sit in has started",
  game_ended: "A game I sit in has ended",
  seat_offered: "Someone offers me a seat in their game",
  private_message: "Someone sends me a private message in a game",
};
const KIND_ORDER = Object.keys(KIND_WORDS) as MailKind[];

const DELIVERY_WORDS: Record<Delivery, { label: string; hint: string }> = {
  immediate: {
    label: "Right away",
    hint: "At most one mail a minute: several things at once come as one mail. No “your turn” mail while you have the game open.",
  },
  digest: { label: "Once a day, as a summary", hint: "One mail a day at the hour you choose below." },
};

const HOOK_KIND_WORDS: Record<HookKind, string> = {
  discord: "Discord",
  slack: "Slack",
  matrix: "Matrix",
  standard: "Signed webhook (for programs)",
};
const CHAT_KINDS: HookKind[] = ["discord", "slack", "matrix"];

const HOOK_EVENT_WORDS: Record<HookEvent, string> = {
  "game.your_turn": "It's my turn to move",
  "game.deadline_near": "My move is due soon",
  "game.started": "A game I sit in has started",
  "game.ended": "A game I sit in has ended",
  "game.event": "Everything that happens in my games (many messages)",
};
const HOOK_EVENT_ORDER = Object.keys(HOOK_EVENT_WORDS) as HookEvent[];

/** The form's words for the API's field names, so an error names the field as the person sees it. */
const LABELS: Record<string, string> = {
  email: "Mail address",
  mail_enabled: "Send me mail",
  kinds: "What to mail me about",
  delivery: "How often",
  digest_hour: "Hour of the daily summary",
  time_zone: "Time zone",
  muted_games: "Muted games",
  url: "Webhook address",
  events: "What to post",
  kind: "Chat app",
};

/** A checkbox per value, in the order of ``words`` (its labels): the chosen ones as a set. */
function Checks<T extends string>({ name, words, chosen, onChange }: { name: string; words: Record<T, string>; chosen: Set<T>; onChange: (next: Set<T>) => void }) {
  return (
    <>
      {(Object.keys(words) as T[]).map((value) => (
        <label class="check block" key={value}>
          <input
            type="checkbox"
            name={name}
            value={value}
            checked={chosen.has(value)}
            onChange={(e) => {
              const next = new Set(chosen);
              if ((e.currentTarget as HTMLInputElement).checked) next.add(value);
              else next.delete(value);
              onChange(next);
            }}
          />
          {words[value]}
        </label>
      ))}
    </>
  );
}

function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The IANA zones the browser knows (the saved and the browser's own always among them), sorted. */
function zoneList(...must: string[]): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  let zones: string[] = [];
  try {
    zones = intl.supportedValuesOf ? intl.supportedValuesOf("timeZone") : [];
  } catch {
    zones = [];
  }
  return [...new Set([...zones, "UTC", ...must.filter(Boolean)])].sort();
}

function hourWords(hour: number): string {
  return `${String(hour).padStart(2, "0")}:00`;
}

function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "";
}

export function NotificationsPage() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [games, setGames] = useState<Game[]>([]);
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  async function load() {
    try {
      const [s, page, h] = await Promise.all([
        api.get<Settings>("me/notifications"),
        api.get<Schemas["GamePageOutput"]>("me/games?page_size=50"),
        api.get<Webhook[]>("me/webhooks"),
      ]);
      setSettings(s);
      setGames(page.results);
      setHooks(h);
      setProblem(null);
    } catch (e) {
      setProblem(errorText(e, LABELS));
    }
  }
  useEffect(() => {
    void load();
    // back from the mail (another tab) with the link opened: show the address as it is now
    const again = () => {
      if (document.visibilityState === "visible") void load();
    };
    document.addEventListener("visibilitychange", again);
    return () => document.removeEventListener("visibilitychange", again);
  }, []);
  if (!settings) return problem ? <ErrorBox error={problem} /> : <Loading what="Loading your notification settings" />;
  return (
    <section class="notifications">
      <h1>Notifications</h1>
      <p>
        Choose how the game tells you when something needs you. <a href="/play/settings">Back to your account</a>
      </p>
      <EmailPanel email={settings.email} onEmail={(email) => setSettings({ ...settings, email })} onReload={load} />
      <MailPanel settings={settings} onSaved={setSettings} />
      <MutedPanel settings={settings} games={games} onSaved={setSettings} />
      <ChatPanel hooks={hooks ?? []} onChanged={load} />
    </section>
  );
}

function EmailPanel({ email, onEmail, onReload }: { email: Email; onEmail: (e: Email) => void; onReload: () => Promise<void> }) {
  const [address, setAddress] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  async function act(what: () => Promise<Email | void>, done: string) {
    setBusy(true);
    setProblem(null);
    setStatus(null);
    try {
      const out = await what();
      if (out) onEmail(out);
      setStatus(done);
    } catch (e) {
      setProblem(errorText(e, LABELS));
    } finally {
      setBusy(false);
    }
  }
  const send = (to: string) => api.put<Email>("me/email", { email: to }, { retry: false });
  const none: Email = { address: "", verified_at: null, pending_address: "", pending_since: null };
  return (
    <section class="panel" aria-labelledby="email-h">
      <h2 id="email-h">Your mail address</h2>
      {email.address ? (
        <p data-testid="email-verified">
          Mail goes to <strong>{email.address}</strong> <span class="ok">✓ confirmed</span>
          {email.verified_at && <span class="hint">Confirmed on {when(email.verified_at)}.</span>}
        </p>
      ) : (
        !email.pending_address && <p>You have not given a mail address yet, so nothing is mailed to you.</p>
      )}
      {email.pending_address && (
        <Notice kind="warn">
          <p data-testid="email-pending">
            We sent a link to <strong>{email.pending_address}</strong>. Open it to confirm this address.
            {email.address ? ` Until then mail still goes to ${email.address}.` : " Nothing is mailed to it until then."}
          </p>
          <p class="hint">The link works for two days. No mail? Look in your spam folder, or send it again.</p>
          <div class="buttons">
            <button type="button" disabled={busy} onClick={() => void act(onReload, "")}>
              I opened the link: check again
            </button>
            <button type="button" disabled={busy} onClick={() => void act(() => send(email.pending_address), `We sent a new link to ${email.pending_address}.`)}>
              Send the link again
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void act(
                  () => (email.address ? send(email.address) : api.delete<void>("me/email").then(() => none)),
                  `The change to ${email.pending_address} is cancelled.`,
                )
              }
            >
              Cancel this change
            </button>
          </div>
        </Notice>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const to = address.trim();
          void act(async () => {
            const out = await send(to);
            setAddress("");
            return out;
          }, `We sent a link to ${to}.`);
        }}
      >
        <label for="notify-email">{email.address || email.pending_address ? "Use another address" : "Mail address"}</label>
        <span class="hint" id="notify-email-hint">
          We mail a link to it; nothing else is sent there until you open the link. Only you can see your address.
        </span>
        <div class="row">
          <input
            id="notify-email"
            type="email"
            autocomplete="email"
            inputMode="email"
            required
            maxLength={254}
            aria-describedby="notify-email-hint"
            value={address}
            onInput={(e) => setAddress((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy}>
            Send me a confirmation link
          </button>
        </div>
      </form>
      {(email.address || email.pending_address) && (
        <p>
          <button type="button" class="danger" disabled={busy} onClick={() => void act(() => api.delete<void>("me/email").then(() => none), "Your address is removed: nothing more is mailed to you.")}>
            Remove my address
          </button>
        </p>
      )}
      {status && (
        <p role="status" class="ok">
          {status}
        </p>
      )}
      <ErrorBox error={problem} />
    </section>
  );
}

function MailPanel({ settings, onSaved }: { settings: Settings; onSaved: (s: Settings) => void }) {
  const guessZone = settings.time_zone === "UTC" && browserZone() !== "UTC";
  const [enabled, setEnabled] = useState(settings.mail_enabled);
  const [kinds, setKinds] = useState<Set<MailKind>>(new Set(settings.kinds));
  const [delivery, setDelivery] = useState<Delivery>(settings.delivery);
  const [hour, setHour] = useState(settings.digest_hour);
  const [zone, setZone] = useState(guessZone ? browserZone() : settings.time_zone);
  const [zones] = useState(() => zoneList(settings.time_zone, browserZone()));
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const touched = () => setSaved(false);
  const noAddress = !settings.email.address;
  return (
    <section class="panel" aria-labelledby="mail-h">
      <h2 id="mail-h">What we mail you</h2>
      {noAddress && <p class="hint">These take effect once your mail address is confirmed.</p>}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setProblem(null);
          try {
            const body: Schemas["PatchedNotificationSettingsInputRequest"] = {
              mail_enabled: enabled,
              kinds: KIND_ORDER.filter((k) => kinds.has(k)),
              delivery,
              digest_hour: hour,
              time_zone: zone,
            };
            onSaved(await api.patch<Settings>("me/notifications", body));
            setSaved(true);
          } catch (err) {
            setProblem(errorText(err, LABELS));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label class="check">
          <input
            type="checkbox"
            id="mail-enabled"
            checked={enabled}
            onChange={(e) => {
              setEnabled((e.currentTarget as HTMLInputElement).checked);
              touched();
            }}
          />
          Send me notification mail
        </label>
        {!settings.mail_enabled && (
          <span class="hint">Mail is off (perhaps you unsubscribed from a mail). Tick the box and save to get mail again.</span>
        )}
        <fieldset disabled={!enabled}>
          <legend>Mail me when…</legend>
          <Checks
            name="kinds"
            words={KIND_WORDS}
            chosen={kinds}
            onChange={(next) => {
              setKinds(next);
              touched();
            }}
          />
        </fieldset>
        <fieldset disabled={!enabled}>
          <legend>How often</legend>
          {(Object.keys(DELIVERY_WORDS) as Delivery[]).map((d) => (
            <label class="check block" key={d}>
              <input
                type="radio"
                name="delivery"
                value={d}
                checked={delivery === d}
                onChange={() => {
                  setDelivery(d);
                  touched();
                }}
              />
              <span>
                {DELIVERY_WORDS[d].label}
                <span class="hint">{DELIVERY_WORDS[d].hint}</span>
              </span>
            </label>
          ))}
          {delivery === "digest" && (
            <>
              <label for="digest-hour">Send the daily summary at</label>
              <select
                id="digest-hour"
                value={String(hour)}
                onChange={(e) => {
                  setHour(Number((e.currentTarget as HTMLSelectElement).value));
                  touched();
                }}
              >
                {Array.from({ length: 24 }, (_, h) => (
                  <option key={h} value={String(h)}>
                    {hourWords(h)}
                  </option>
                ))}
              </select>
              {settings.delivery === "digest" && settings.next_digest_at && (
                <span class="hint">Next summary: {when(settings.next_digest_at)}.</span>
              )}
            </>
          )}
        </fieldset>
        <label for="time-zone">Your time zone</label>
        <span class="hint" id="time-zone-hint">
          {guessZone && zone === browserZone() && settings.time_zone !== zone
            ? `Taken from your browser (${browserZone()}); save to keep it. `
            : ""}
          The hour of the daily summary is in this time zone.
        </span>
        <select
          id="time-zone"
          aria-describedby="time-zone-hint"
          value={zone}
          onChange={(e) => {
            setZone((e.currentTarget as HTMLSelectElement).value);
            touched();
          }}
        >
          {zones.map((z) => (
            <option key={z} value={z}>
              {z.replace(/_/g, " ")}
            </option>
          ))}
        </select>
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Save mail settings
          </button>
          {saved && <span role="status"> Saved.</span>}
        </div>
      </form>
      <ErrorBox error={problem} />
    </section>
  );
}

function MutedPanel({ settings, games, onSaved }: { settings: Settings; games: Game[]; onSaved: (s: Settings) => void }) {
  const [pick, setPick] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const names = new Map(games.map((g) => [g.id, g.name || `Game ${g.id}`]));
  const muted = new Set(settings.muted_games);
  const canMute = games.filter((g) => !muted.has(g.id) && g.status !== "over");
  async function save(list: number[]) {
    setBusy(true);
    setProblem(null);
    try {
      onSaved(await api.patch<Settings>("me/notifications", { muted_games: list }));
      setPick("");
    } catch (err) {
      setProblem(errorText(err, LABELS));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section class="panel" aria-labelledby="muted-h">
      <h2 id="muted-h">Muted games</h2>
      <p class="hint">Nothing is sent about a muted game: no mail and no chat message.</p>
      {settings.muted_games.length === 0 ? (
        <p>No game is muted.</p>
      ) : (
        <ul class="plain-list" aria-label="Muted games">
          {settings.muted_games.map((id) => (
            <li key={id}>
              <a href={`/play/games/${id}`}>{names.get(id) ?? `Game ${id}`}</a>{" "}
              <button type="button" disabled={busy} aria-label={`Unmute ${names.get(id) ?? `game ${id}`}`} onClick={() => void save(settings.muted_games.filter((g) => g !== id))}>
                Unmute
              </button>
            </li>
          ))}
        </ul>
      )}
      {canMute.length > 0 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (pick) void save([...settings.muted_games, Number(pick)]);
          }}
        >
          <label for="mute-game">Mute one of your games</label>
          <div class="row">
            <select id="mute-game" value={pick} onChange={(e) => setPick((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Choose a game…</option>
              {canMute.map((g) => (
                <option key={g.id} value={String(g.id)}>
                  {g.name || `Game ${g.id}`}
                </option>
              ))}
            </select>
            <button type="submit" disabled={busy || !pick}>
              Mute
            </button>
          </div>
        </form>
      )}
      <ErrorBox error={problem} />
    </section>
  );
}

function hookState(h: Webhook): string {
  if (h.enabled) return h.failing_since ? `on, but failing since ${when(h.failing_since)} (${h.last_failure})` : "on";
  return h.disabled_reason ? `off: ${h.disabled_reason}` : "off";
}

function ChatPanel({ hooks, onChanged }: { hooks: Webhook[]; onChanged: () => Promise<void> }) {
  const [kind, setKind] = useState<HookKind>("discord");
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<Set<HookEvent>>(new Set(["game.your_turn", "game.deadline_near"]));
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  async function act(what: () => Promise<unknown>, done: string) {
    setBusy(true);
    setProblem(null);
    setStatus(null);
    try {
      await what();
      await onChanged();
      setStatus(done);
    } catch (err) {
      setProblem(errorText(err, LABELS));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section class="panel" aria-labelledby="chat-h">
      <h2 id="chat-h">Chat messages</h2>
      <p class="hint">
        Get a short message in a Discord, Slack or Matrix room: in the room's settings create an “incoming webhook” and paste its address here.
      </p>
      {hooks.length > 0 && (
        <ul class="plain-list" aria-label="Your chat and webhook connections">
          {hooks.map((h) => (
            <li key={h.id} class="hook">
              <strong>{HOOK_KIND_WORDS[h.kind]}</strong> <span class="hook-url">{h.url}</span>
              <span class="hint">
                Posts: {h.events.map((e) => HOOK_EVENT_WORDS[e]).join("; ")}. State: {hookState(h)}.
              </span>
              {!h.enabled && (
                <button type="button" disabled={busy} onClick={() => void act(() => api.patch(`me/webhooks/${h.id}`, { enabled: true }), "Turned on again.")}>
                  Turn on again
                </button>
              )}
              <button
                type="button"
                class="danger"
                disabled={busy}
                aria-label={`Remove the ${HOOK_KIND_WORDS[h.kind]} connection ${h.url}`}
                onClick={() => void act(() => api.delete(`me/webhooks/${h.id}`), "Removed.")}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const body: Schemas["WebhookCreateInputRequest"] = {
            url: url.trim(),
            kind,
            events: HOOK_EVENT_ORDER.filter((x) => events.has(x)),
            description: `${HOOK_KIND_WORDS[kind]} room`,
          };
          void act(async () => {
            await api.post("me/webhooks", body);
            setUrl("");
          }, `The ${HOOK_KIND_WORDS[kind]} room is connected.`);
        }}
      >
        <label for="hook-kind">Chat app</label>
        <select id="hook-kind" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as HookKind)}>
          {CHAT_KINDS.map((k) => (
            <option key={k} value={k}>
              {HOOK_KIND_WORDS[k]}
            </option>
          ))}
        </select>
        <label for="hook-url">The room's webhook address</label>
        <input
          id="hook-url"
          type="url"
          required
          maxLength={2000}
          placeholder="https://…"
          value={url}
          onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>Post a message when…</legend>
          <Checks name="events" words={HOOK_EVENT_WORDS} chosen={events} onChange={setEvents} />
        </fieldset>
        <button type="submit" disabled={busy}>
          Connect this room
        </button>
      </form>
      {status && (
        <p role="status" class="ok">
          {status}
        </p>
      )}
      <ErrorBox error={problem} />
    </section>
  );
}
