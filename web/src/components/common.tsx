import type { ComponentChildren } from "preact";
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
