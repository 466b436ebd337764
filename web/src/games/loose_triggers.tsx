// Loose Triggers's table drawing and event words (placeholder until the per-game drawing lands).
import { placeholderUi } from "./placeholder";

export const looseTriggers = placeholderUi("loose_triggers", "Loose Triggers");
