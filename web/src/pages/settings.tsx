import { useEffect, useState } from "preact/hooks";

import { auth } from "../api/auth";
import { api, errorText } from "../api/client";
import type { Schemas } from "../api/types";
import { ErrorBox, Loading } from "../components/common";

type Token = Schemas["TokenOutput"];

export function SettingsPage() {
  const [me, setMe] = useState<Schemas["PlayerOutput"] | null>(null);
  const [tokens, setTokens] = useState<Token[] | null>(null);
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const session = auth.session();
  async function load() {
    try {
      const player = await api.get<Schemas["PlayerOutput"]>("me");
      setMe(player);
      setName(player.display_name);
      setTokens(await api.get<Token[]>("me/tokens"));
    } catch (e) {
      setProblem(errorText(e));
    }
  }
  useEffect(() => void load(), []);
  if (!me) return problem ? <ErrorBox error={problem} /> : <Loading />;
  return (
    <section>
      <h1>Account</h1>
      <p>
        Username: <strong>{me.username}</strong>
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setProblem(null);
          try {
            setMe(await api.patch<Schemas["PlayerOutput"]>("me", { display_name: name }));
            setSaved(true);
          } catch (err) {
            setProblem(errorText(err));
          }
        }}
      >
        <label for="display-name">Display name</label>
        <input id="display-name" value={name} onInput={(e) => { setName((e.currentTarget as HTMLInputElement).value); setSaved(false); }} />
        <button type="submit">Save</button>
        {saved && <span role="status"> Saved.</span>}
      </form>
      <h2>Notifications</h2>
      <p>
        <a href="/play/notifications">Mail and chat notifications</a>: your mail address, what you are told about and
        how often, muted games.
      </p>
      <h2>Logins and API tokens</h2>
      <ul>
        {(tokens ?? []).map((t) => (
          <li key={t.id}>
            {t.name} ({t.display}…){t.id === session?.tokenId ? " — this browser" : ""}{" "}
            <button
              type="button"
              aria-label={`Revoke token ${t.name} ${t.display}`}
              onClick={async () => {
                try {
                  await api.delete(`me/tokens/${t.id}`);
                  if (t.id === session?.tokenId) auth.clear();
                  else await load();
                } catch (err) {
                  setProblem(errorText(err));
                }
              }}
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <ErrorBox error={problem} />
    </section>
  );
}
