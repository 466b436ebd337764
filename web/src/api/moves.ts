// The legal moves (`moves` of GET /state, issue #24) and who is acting (`acting`), as the spec types them.
import type { ViewerState } from "./types";

type Scalar = string | number | boolean | null;

// Until the spec of branch contract-moves is merged these mirror CONTRACT.md; then they come from the spec.
interface FieldBase {
  name: string;
  label: string;
  required: boolean;
}
export type MoveField =
  | (FieldBase & { kind: "choice"; options: Scalar[] })
  | (FieldBase & { kind: "subset"; options: Scalar[]; min: number; max: number; nullable?: boolean })
  | (FieldBase & { kind: "multiset"; options: Scalar[]; min: number; max: number })
  | (FieldBase & { kind: "integer"; minimum: number; maximum: number })
  | (FieldBase & { kind: "text"; min_length?: number; max_length: number })
  | (FieldBase & { kind: "partition"; items: Scalar[]; parts: number; part_labels?: string[] })
  | (FieldBase & { kind: "sequence"; options: Scalar[]; length: number; once?: Scalar[] })
  | (FieldBase & {
      kind: "counts";
      keys: string[];
      maximum: number[];
      pool?: string | null;
      weights?: number[] | null;
      min_weight?: number | null;
    })
  | (FieldBase & { kind: "groups"; groups: { options: Scalar[]; count: number }[] });

export interface Move {
  command: string;
  path: string;
  fields: MoveField[];
}

export interface Acting {
  step: string;
  step_no: number;
  due_at: string | null;
  paused: boolean;
  seats: { seat: number; player: string | null; commands: string[]; waited_on: boolean }[];
  you: boolean;
}

/** The state's legal moves, or null when the server does not send them (an older server). */
export function movesOf(state: ViewerState): Move[] | null {
  const value = (state as unknown as { moves?: Move[] }).moves;
  return Array.isArray(value) ? value : null;
}

export function actingOf(state: ViewerState): Acting | null {
  return (state as unknown as { acting?: Acting | null }).acting ?? null;
}
