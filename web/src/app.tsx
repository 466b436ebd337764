import { GAMES } from "./games/registry";

export function App() {
  return (
    <div>
      <h1>GoodCritters</h1>
      <ul>
        {Object.values(GAMES).map((g) => (
          <li key={g.slug}>{g.title}</li>
        ))}
      </ul>
    </div>
  );
}
