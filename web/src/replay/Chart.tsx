// The game's chart (GET /games/{id}/chart): one step line per seat of what the ruleset plots (GoodCritters:
// Stash value; Loose Triggers: Loot value; Were-cats: Points) against the event number, drawn in SVG, with a
// marker at the replay's position. Geometry as the server's replay page draws it (games/audit/replay.py).
import type { Chart as ChartData } from "./data";

export const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

function niceStep(span: number, ticks = 6): number {
  let step = 1;
  for (;;) {
    for (const f of [1, 2, 5]) if (span <= step * f * ticks) return step * f;
    step *= 10;
  }
}

function money(label: string | null | undefined, v: number): string {
  return label === "Points" ? String(v) : `$${v.toLocaleString("en-US")}`;
}

export function valueAt(chart: ChartData, seq: number): number[] | null {
  let row: number[] | null = null;
  chart.seqs.forEach((s, k) => {
    if (s <= seq) row = chart.series[k] ?? row;
  });
  return row;
}

export function ReplayChart({ chart, seq, names }: { chart: ChartData; seq: number; names: string[] }) {
  if (!chart.label || chart.seqs.length === 0) return <p>This game has no chart.</p>;
  const width = 720;
  const height = 260;
  const [left, right, top, bottom] = [64, 16, 12, 28];
  const values = chart.series.flat();
  const low = Math.min(0, ...values);
  const high = Math.max(1, ...values);
  const step = niceStep(high - low);
  const floor = -Math.ceil(-low / step) * step;
  const ceiling = Math.ceil(high / step) * step;
  const first = chart.seqs[0] ?? 0;
  const last = chart.seqs[chart.seqs.length - 1] ?? 1;
  const spread = Math.max(last - first, 1);
  const x = (s: number) => +(left + ((width - left - right) * (Math.min(Math.max(s, first), last) - first)) / spread).toFixed(1);
  const y = (v: number) => +(top + ((height - top - bottom) * (ceiling - v)) / (ceiling - floor)).toFixed(1);
  const seats = chart.series[0]?.length ?? 0;
  const lines = Array.from({ length: seats }, (_, s) => {
    const pts: string[] = [];
    chart.seqs.forEach((q, k) => {
      const v = chart.series[k]?.[s] ?? 0;
      if (k > 0) pts.push(`${x(q)},${y(chart.series[k - 1]?.[s] ?? 0)}`);
      pts.push(`${x(q)},${y(v)}`);
    });
    return pts.join(" ");
  });
  const ticks: number[] = [];
  for (let v = floor; v <= ceiling; v += step) ticks.push(v);
  const xstep = niceStep(spread, 8);
  const xs = [first];
  for (let q = (Math.floor(first / xstep) + 1) * xstep; q < last; q += xstep) {
    if (q - first >= xstep / 2 && last - q >= xstep / 2) xs.push(q);
  }
  xs.push(last);
  const now = valueAt(chart, seq);
  const final = chart.series[chart.series.length - 1] ?? [];
  const summary = `${chart.label} by seat over the game (x: event number). At the end: ${names
    .map((n, s) => `${n} ${money(chart.label, final[s] ?? 0)}`)
    .join(", ")}.`;
  return (
    <figure class="replay-chart" data-chart={chart.label}>
      <figcaption>
        <strong>{chart.label}</strong> after event {seq}
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} preserveAspectRatio="xMidYMid meet">
        {ticks.map((v) => (
          <g key={`y${v}`}>
            <line x1={left} x2={width - right} y1={y(v)} y2={y(v)} class="grid" />
            <text x={left - 6} y={y(v) + 4} text-anchor="end" class="tick">
              {money(chart.label, v)}
            </text>
          </g>
        ))}
        {xs.map((q) => (
          <text key={`x${q}`} x={x(q)} y={height - bottom + 18} text-anchor="middle" class="tick">
            {q}
          </text>
        ))}
        <line x1={left} x2={left} y1={top} y2={height - bottom} class="axis" />
        <line x1={left} x2={width - right} y1={height - bottom} y2={height - bottom} class="axis" />
        {lines.map((points, s) => (
          <polyline key={s} points={points} fill="none" stroke={COLORS[s % COLORS.length]} stroke-width="2" data-seat={s} />
        ))}
        <line x1={x(seq)} x2={x(seq)} y1={top} y2={height - bottom} class="now" data-now={seq} />
      </svg>
      <ul class="legend">
        {names.map((n, s) => (
          <li key={s} data-seat={s}>
            <svg width="14" height="14" aria-hidden="true" focusable="false">
              <rect width="14" height="14" fill={COLORS[s % COLORS.length]} />
            </svg>{" "}
            {n}: {now ? money(chart.label, now[s] ?? 0) : "-"}
          </li>
        ))}
      </ul>
    </figure>
  );
}
