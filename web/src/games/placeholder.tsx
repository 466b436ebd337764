// A table that only prints the step: the frame's stand-in for a game whose drawing has not landed, and for a
// ruleset this build does not know.
import type { FeedEvent } from "../api/types";
import type { GameUi, TableProps } from "./registry";

export function placeholderUi(slug: string, title: string): GameUi {
  return {
    slug,
    title,
    Table: ({ state }: TableProps) => {
      const step = "waiting" in state ? state.waiting?.step : undefined;
      return (
        <section class="table-placeholder" aria-label={`${title} table`}>
          <p>
            {title}: {step ? `step ${step}` : state.state.over ? "game over" : "no step open"}
          </p>
        </section>
      );
    },
    describeEvent: (event: FeedEvent) => `#${event.seq} ${event.event.type}`,
  };
}
