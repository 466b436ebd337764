// The replay page at /play/games/<id>/replay (placeholder: the replay pages' helper replaces this file).
// The frame's router renders <ReplayPage gameId={id} />; the page fetches what it needs from the public API
// (GET /games/{id}, /record, /states/{seq}, /verify) and draws each state with GAMES[ruleset].Table.
export function ReplayPage({ gameId }: { gameId: number }) {
  return (
    <section>
      <h1>Replay of game {gameId}</h1>
      <p>
        The record: <a href={`/api/v1/games/${gameId}/record`}>raw events (JSON)</a>
      </p>
    </section>
  );
}
