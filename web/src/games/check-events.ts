// A unit check of the event words (run by tests/audit/test_event_words.py, bundled by esbuild for Node):
// reads {ruleset, names, events: [{seq, event}]} cases from globalThis.__CASES__ (set by the test's runner)
// and logs, as JSON, every sentence that is not words: a bare type name (an event type without its own
// sentence), or one that shows "undefined", "null", "NaN" or "[object" (a field read wrong).
import type { FeedEvent } from "../api/types";
import { GAMES } from "./registry";

interface Case {
  ruleset: string;
  names: string[];
  events: FeedEvent[];
}

const cases = (globalThis as { __CASES__?: Case[] }).__CASES__ ?? [];
const bad: Array<{ ruleset: string; seq: number; type: string; text: string }> = [];
const types = new Set<string>();
for (const c of cases) {
  const ui = GAMES[c.ruleset];
  if (!ui) throw new Error(`no drawing for ${c.ruleset}`);
  for (const item of c.events) {
    const text = ui.describeEvent(item, c.names);
    types.add(`${c.ruleset}:${item.event.type}`);
    if (text === item.event.type || !text.includes(" ") || /undefined|null|NaN|\[object/.test(text)) {
      bad.push({ ruleset: c.ruleset, seq: item.seq, type: item.event.type, text });
    }
  }
}
console.log(JSON.stringify({ bad, types: [...types].sort() }));
