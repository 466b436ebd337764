import { Component, type ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

/** The current time, ticking once a second (for countdowns). */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

export function formatLeft(ms: number): string {
  if (ms <= 0) return "due now";
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m ${String(sec).padStart(2, "0")}s`;
  return `${m}m ${String(sec).padStart(2, "0")}s`;
}

/** A deadline counting down each second (or a word when there is none / the game is paused). */
export function Countdown({ due, paused, label = "Deadline" }: { due: string | null | undefined; paused?: boolean; label?: string }) {
  const now = useNow();
  if (paused) return <span class="countdown paused">{label}: paused</span>;
  if (!due) return <span class="countdown none">{label}: none</span>;
  const left = Date.parse(due) - now;
  return (
    <span class={`countdown${left < 60000 ? " soon" : ""}`} title={new Date(due).toLocaleString()}>
      {label}: <time dateTime={due}>{formatLeft(left)}</time>
    </span>
  );
}

export function ErrorBox({ error, children }: { error: string | null | undefined; children?: ComponentChildren }) {
  if (!error) return null;
  return (
    <div class="error-box" role="alert">
      <p>{error}</p>
      {children}
    </div>
  );
}

/** One part of a page that may fail to draw (a game's table, the log in words): a bug there is shown in words
 * and logged, and the rest of the page (the moves, pause, resign, messages) stays usable. */
export class Guard extends Component<{ what: string; reset?: unknown; children?: ComponentChildren }, { failed: string | null }> {
  override state = { failed: null as string | null };
  /** A new ``reset`` (the next version of the game, another position of the replay) tries to draw again. */
  override componentDidUpdate(previous: { reset?: unknown }): void {
    if (previous.reset !== this.props.reset && this.state.failed !== null) this.setState({ failed: null });
  }
  static override getDerivedStateFromError(error: unknown) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
  override componentDidCatch(error: unknown): void {
    console.error(`could not draw ${this.props.what}:`, error);
  }
  render() {
    if (this.state.failed !== null) {
      return <ErrorBox error={`This part of the page (${this.props.what}) could not be drawn: ${this.state.failed}.`} />;
    }
    return this.props.children;
  }
}

/** An event in words, drawn as a component of its own (not a call in the page's render): a bug in a game's
 * words stays inside the nearest Guard. */
export function EventWords<T>({ describe, item, names }: { describe: (item: T, names?: readonly string[]) => string; item: T; names?: readonly string[] }) {
  return <>{describe(item, names)}</>;
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  );
}

export function Notice({ children, kind = "info" }: { children: ComponentChildren; kind?: "info" | "warn" }) {
  return (
    <div class={`notice ${kind}`} role="status">
      {children}
    </div>
  );
}

export const RULESET_TITLES: Record<string, string> = {
  goodcritters: "GoodCritters",
  loose_triggers: "Loose Triggers",
  were_cats: "Were-cats",
};
