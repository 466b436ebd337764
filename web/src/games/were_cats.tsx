// Were-cats's table drawing and event words (placeholder until the per-game drawing lands).
import { placeholderUi } from "./placeholder";

export const wereCats = placeholderUi("were_cats", "Were-cats");
