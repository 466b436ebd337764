// Where the token lives, and why (issue #22; PITFALLS: a bearer token in localStorage is one XSS away from
// theft). The page is a client of the public API, whose only credential is a bearer token, so the token must
// be readable by the page's script; it is kept in localStorage (so every tab of the site is logged in, like a
// session) under one key, and the risk is fenced off instead: the pages run under a strict
// Content-Security-Policy (scripts from this origin only, no inline script, connect-src 'self'), nothing
// ever renders server text as markup (Preact escapes every string; no innerHTML), and the token is a
// revocable one of its own (named "browser"): log out revokes it on the server (DELETE /me/tokens/{id}),
// and the account page lists and revokes the others. It is never put in a URL (the live stream is read with
// fetch() and an Authorization header, not EventSource).
import type { Schemas } from "./types";

const KEY = "critters.auth";

export interface Session {
  token: string;
  tokenId: number;
  username: string;
}

type Listener = () => void;
const listeners = new Set<Listener>();
let expiredNotice = false;

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Session>;
    if (typeof value.token === "string" && typeof value.tokenId === "number" && typeof value.username === "string") {
      return value as Session;
    }
  } catch {
    /* unreadable: treated as logged out */
  }
  return null;
}

export const auth = {
  session: read,
  token(): string | null {
    return read()?.token ?? null;
  },
  save(created: Schemas["TokenCreatedOutput"], username: string): void {
    localStorage.setItem(KEY, JSON.stringify({ token: created.token, tokenId: created.id, username }));
    expiredNotice = false;
    listeners.forEach((l) => l());
  },
  clear(): void {
    localStorage.removeItem(KEY);
    listeners.forEach((l) => l());
  },
  /** The server refused the token (revoked elsewhere, expired): forget it, tell the page. */
  expired(): void {
    if (read()) {
      expiredNotice = true;
      auth.clear();
    }
  },
  takeExpiredNotice(): boolean {
    const value = expiredNotice;
    expiredNotice = false;
    return value;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

// Another tab logged in or out: follow it.
window.addEventListener("storage", (event) => {
  if (event.key === KEY) listeners.forEach((l) => l());
});
