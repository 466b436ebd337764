import { useState } from "preact/hooks";

import { auth } from "../api/auth";
import { api, errorText } from "../api/client";
import type { Schemas } from "../api/types";
import { ErrorBox } from "../components/common";
import { navigate } from "../router";

async function logIn(username: string, password: string): Promise<void> {
  const created = await api.post<Schemas["TokenCreatedOutput"]>("auth/tokens", { username, password, name: "browser" }, { anonymous: true });
  auth.save(created, username);
}

/** Log out: revoke this browser's token on the server, then forget it. */
export async function logOut(): Promise<void> {
  const session = auth.session();
  if (session) {
    try {
      await api.delete(`me/tokens/${session.tokenId}`);
    } catch {
      /* revoked already or unreachable: forget it all the same */
    }
  }
  auth.clear();
  navigate("/play/login");
}

export function LoginPage({ next }: { next: string }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const expired = auth.takeExpiredNotice();
  return (
    <section class="auth">
      <h1>Log in</h1>
      {expired && <p role="status">Your login ended (the token was revoked or expired). Log in again.</p>}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setProblem(null);
          try {
            await logIn(username, password);
            navigate(next.startsWith("/play") ? next : "/play/", true);
          } catch (err) {
            setProblem(errorText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="login-username">Username</label>
        <input id="login-username" name="username" autoComplete="username" required value={username} onInput={(e) => setUsername((e.currentTarget as HTMLInputElement).value)} />
        <label for="login-password">Password</label>
        <input id="login-password" name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>
          Log in
        </button>
        <ErrorBox error={problem} />
      </form>
      <p>
        No account? <a href={`/play/signup?next=${encodeURIComponent(next)}`}>Sign up</a>
      </p>
    </section>
  );
}

export function SignupPage({ next }: { next: string }) {
  const [username, setUsername] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section class="auth">
      <h1>Sign up</h1>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setProblem(null);
          try {
            const body: Schemas["SignUpInputRequest"] = { username, password };
            if (displayName) body.display_name = displayName;
            await api.post("players", body, { anonymous: true });
            await logIn(username, password);
            navigate(next.startsWith("/play") ? next : "/play/", true);
          } catch (err) {
            setProblem(errorText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="signup-username">Username</label>
        <input id="signup-username" name="username" autoComplete="username" required value={username} onInput={(e) => setUsername((e.currentTarget as HTMLInputElement).value)} />
        <label for="signup-display">Display name (optional)</label>
        <input id="signup-display" name="display_name" value={displayName} onInput={(e) => setDisplayName((e.currentTarget as HTMLInputElement).value)} />
        <label for="signup-password">Password</label>
        <input id="signup-password" name="password" type="password" autoComplete="new-password" required value={password} onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>
          Sign up
        </button>
        <ErrorBox error={problem} />
      </form>
      <p>
        Have an account? <a href={`/play/login?next=${encodeURIComponent(next)}`}>Log in</a>
      </p>
    </section>
  );
}
