// The frame: header and navigation, routing, login gate, and a last-resort error boundary (never a blank page).
import { Component, type ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

import { auth } from "./api/auth";
import { ErrorBox } from "./components/common";
import { LoginPage, logOut, SignupPage } from "./pages/auth";
import { LobbyPage } from "./pages/lobby";
import { MyGamesPage } from "./pages/mygames";
import { NotificationsPage } from "./pages/notifications";
import { SettingsPage } from "./pages/settings";
import { TablePage } from "./pages/table";
import { ReplayPage } from "./replay/ReplayPage";
import { navigate, useRoute, type Route } from "./router";

class Boundary extends Component<{ children: ComponentChildren; resetKey: string }, { error: string | null }> {
  override state = { error: null as string | null };
  static override getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }
  override render() {
    if (this.state.error)
      return (
        <ErrorBox error={`Something went wrong on this page: ${this.state.error}`}>
          <p>
            <a href="/play/">Back to the lobby</a> or reload the page.
          </p>
        </ErrorBox>
      );
    return this.props.children;
  }
}

function useSession() {
  const [session, setSession] = useState(auth.session);
  useEffect(() => auth.subscribe(() => setSession(auth.session())), []);
  return session;
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "login":
      return <LoginPage next={route.next} />;
    case "signup":
      return <SignupPage next={route.next} />;
    case "lobby":
      return <LobbyPage />;
    case "me":
      return <MyGamesPage />;
    case "settings":
      return <SettingsPage />;
    case "notifications":
      return <NotificationsPage />;
    case "table":
      return <TablePage key={route.gameId} gameId={route.gameId} />;
    case "replay":
      return <ReplayPage key={route.gameId} gameId={route.gameId} />;
    case "notfound":
      return <ErrorBox error={`There is no page at ${route.path}.`}><p><a href="/play/">Go to the lobby</a></p></ErrorBox>;
  }
}

export function App() {
  const route = useRoute();
  const session = useSession();
  const open = route.page === "login" || route.page === "signup";
  useEffect(() => {
    if (!session && !open) navigate(`/play/login?next=${encodeURIComponent(location.pathname)}`, true);
  }, [session, open]);
  useEffect(() => {
    const titles: Record<string, string> = { lobby: "Lobby", me: "My games", login: "Log in", signup: "Sign up", settings: "Account", notifications: "Notifications", table: "Table", replay: "Replay", notfound: "Not found" };
    document.title = `${titles[route.page] ?? "Play"} · GoodCritters`;
  }, [route.page]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <header class="site">
        <nav aria-label="Site">
          <a href="/play/" class="brand">
            GoodCritters
          </a>
          {session ? (
            <>
              <a href="/play/" aria-current={route.page === "lobby" ? "page" : undefined}>
                Lobby
              </a>
              <a href="/play/me" aria-current={route.page === "me" ? "page" : undefined}>
                My games
              </a>
              <a href="/play/notifications" aria-current={route.page === "notifications" ? "page" : undefined}>
                Notifications
              </a>
              <a href="/play/settings" aria-current={route.page === "settings" ? "page" : undefined}>
                {session.username}
              </a>
              <button type="button" class="link" onClick={() => void logOut()}>
                Log out
              </button>
            </>
          ) : (
            <>
              <a href="/play/login">Log in</a>
              <a href="/play/signup">Sign up</a>
            </>
          )}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Boundary resetKey={JSON.stringify(route)}>{session || open ? <Page route={route} /> : null}</Boundary>
      </main>
    </>
  );
}
