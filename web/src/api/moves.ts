// The legal moves (`moves` of GET /state and every command's answer, issue #24) and who acts now (`acting`),
// as the spec types them (generated): a client that fills each field from its options sends a legal command.
import type { Schemas, ViewerState } from "./types";

export type Move = Schemas["MoveOutput"];
export type MoveField = Schemas["MoveField"];
export type Acting = Schemas["ActingOutput"];

export function movesOf(state: ViewerState): Move[] {
  return state.moves;
}

export function actingOf(state: ViewerState): Acting | null {
  return state.acting;
}
