// Client-side routing over /play/... (the server answers every /play/ address with the same shell).
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "lobby" }
  | { page: "login"; next: string }
  | { page: "signup"; next: string }
  | { page: "me" }
  | { page: "settings" }
  | { page: "notifications" }
  | { page: "table"; gameId: number }
  | { page: "replay"; gameId: number }
  | { page: "notfound"; path: string };

export function parse(path: string, search = ""): Route {
  const next = new URLSearchParams(search).get("next") ?? "/play/";
  const clean = path.replace(/\/+$/, "") || "/";
  if (clean === "/play" || clean === "/") return { page: "lobby" };
  if (clean === "/play/login") return { page: "login", next };
  if (clean === "/play/signup") return { page: "signup", next };
  if (clean === "/play/me") return { page: "me" };
  if (clean === "/play/settings") return { page: "settings" };
  if (clean === "/play/notifications" || clean === "/play/settings/notifications") return { page: "notifications" };
  let m = /^\/play\/games\/(\d+)$/.exec(clean);
  if (m) return { page: "table", gameId: Number(m[1]) };
  m = /^\/play\/games\/(\d+)\/replay$/.exec(clean);
  if (m) return { page: "replay", gameId: Number(m[1]) };
  return { page: "notfound", path };
}

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.scrollTo(0, 0);
  listeners.forEach((l) => l());
}

window.addEventListener("popstate", () => listeners.forEach((l) => l()));

// Same-origin /play/ links are followed without a reload (plain <a href>, so they work with the keyboard).
document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const target = event.target instanceof Element ? event.target.closest("a") : null;
  if (!target || target.target || target.hasAttribute("download")) return;
  const url = new URL(target.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith("/play")) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parse(location.pathname, location.search));
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return route;
}
