// GoodCritters's table drawing and event words (placeholder until the per-game drawing lands).
import { placeholderUi } from "./placeholder";

export const goodcritters = placeholderUi("goodcritters", "GoodCritters");
