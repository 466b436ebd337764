// The legal moves as controls that offer only what is legal: one form per move of `moves` (GET /state), each
// field a control made from its kind (a choice is a list of its options, a subset checkboxes, a partition a
// part per item, ...). A form sends its body as the command (POST .../commands/{path}); the server's problem,
// if any, is shown in words.
import { useEffect, useId, useState } from "preact/hooks";

import type { Move, MoveField } from "../api/moves";
import { words } from "./schemaform";

type Scalar = string | number | boolean | null;
export type Body = Record<string, unknown>;

export function show(value: Scalar, labels?: Record<string, string>): string {
  if (value === null) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return labels?.[String(value)] ?? String(value);
}

/** A field's starting value: the only option when there is one, else nothing chosen. */
export function initial(field: MoveField): unknown {
  switch (field.kind) {
    case "choice":
      return field.options.length === 1 ? field.options[0] : undefined;
    case "subset":
    case "multiset":
      return [];
    case "integer":
      return field.minimum === field.maximum ? field.minimum : undefined;
    case "text":
      return "";
    case "partition":
      return field.items.map(() => 0);
    case "sequence":
      return Array.from({ length: field.length }, () => undefined);
    case "counts":
      return Object.fromEntries(field.keys.map((k) => [k, 0]));
    case "groups":
      return field.groups.map(() => [] as Scalar[]);
  }
}

/** The body value of a field from the form's value, or a problem in words. */
export function bodyValue(field: MoveField, value: unknown, all: Record<string, unknown>, move: Move): { value?: unknown; problem?: string } {
  switch (field.kind) {
    case "choice":
      if (value === undefined) return field.required ? { problem: `${field.label}: choose one.` } : {};
      return { value };
    case "subset": {
      const list = value as Scalar[];
      if (field.nullable && list.length === 0 && !field.required) return { value: null };
      if (list.length < field.min || list.length > field.max)
        return { problem: `${field.label}: choose ${field.min === field.max ? field.min : `${field.min} to ${field.max}`}.` };
      return { value: list };
    }
    case "multiset": {
      const counts = value as Scalar[];
      if (counts.length < field.min || counts.length > field.max)
        return { problem: `${field.label}: ${field.min} to ${field.max} in all.` };
      return { value: counts };
    }
    case "integer": {
      const n = value as number | undefined;
      if (n === undefined || Number.isNaN(n)) return field.required ? { problem: `${field.label}: a number.` } : {};
      if (!Number.isInteger(n) || n < field.minimum || n > field.maximum)
        return { problem: `${field.label}: a whole number from ${field.minimum} to ${field.maximum}.` };
      return { value: n };
    }
    case "text": {
      const text = (value as string) ?? "";
      if (text.length < (field.min_length ?? (field.required ? 1 : 0))) return { problem: `${field.label}: write something.` };
      if (text.length > field.max_length) return { problem: `${field.label}: at most ${field.max_length} characters.` };
      return { value: text };
    }
    case "partition": {
      const parts: Scalar[][] = Array.from({ length: field.parts }, () => []);
      (value as number[]).forEach((part, i) => parts[part]?.push(field.items[i] ?? null));
      return { value: parts };
    }
    case "sequence": {
      const list = value as (Scalar | undefined)[];
      if (list.some((v) => v === undefined)) return { problem: `${field.label}: fill every place.` };
      for (const once of field.once ?? []) {
        if (list.filter((v) => v === once).length > 1) return { problem: `${field.label}: ${show(once)} at most once.` };
      }
      return { value: list };
    }
    case "counts": {
      const counts = value as Record<string, number>;
      for (const [i, key] of field.keys.entries()) {
        const n = counts[key] ?? 0;
        if (n < 0 || n > (field.maximum[i] ?? 0)) return { problem: `${field.label}: ${key} from 0 to ${field.maximum[i]}.` };
      }
      if (field.pool) {
        const same = move.fields.filter((f): f is Extract<MoveField, { kind: "counts" }> => f.kind === "counts" && f.pool === field.pool);
        for (const [i, key] of field.keys.entries()) {
          const total = same.reduce((sum, f) => sum + ((all[f.name] as Record<string, number>)?.[key] ?? 0), 0);
          if (total > (field.maximum[i] ?? 0)) return { problem: `${field.label}: at most ${field.maximum[i]} ${key} in all.` };
        }
      }
      if (field.weights && field.min_weight != null) {
        const weight = field.keys.reduce((sum, key, i) => sum + (counts[key] ?? 0) * (field.weights?.[i] ?? 0), 0);
        if (weight < field.min_weight) return { problem: `${field.label}: worth at least ${field.min_weight} in all.` };
      }
      return { value: counts };
    }
    case "groups": {
      const chosen = value as Scalar[][];
      for (const [i, group] of field.groups.entries()) {
        if ((chosen[i] ?? []).length !== group.count) return { problem: `${field.label}: choose ${group.count} of group ${i + 1}.` };
      }
      return { value: chosen.flat() };
    }
  }
}

interface ControlProps {
  field: MoveField;
  value: unknown;
  onChange: (value: unknown) => void;
  labels?: Record<string, string> | undefined;
  idBase: string;
}

function Control({ field, value, onChange, labels, idBase }: ControlProps) {
  const id = `${idBase}-${field.name}`;
  switch (field.kind) {
    case "choice":
      return (
        <div class="field">
          <label for={id}>{field.label}</label>
          <select
            id={id}
            name={field.name}
            value={value === undefined ? "" : JSON.stringify(value)}
            onChange={(e) => {
              const raw = (e.currentTarget as HTMLSelectElement).value;
              onChange(raw === "" ? undefined : JSON.parse(raw));
            }}
          >
            {field.options.length !== 1 && <option value="">choose…</option>}
            {field.options.map((o) => (
              <option key={JSON.stringify(o)} value={JSON.stringify(o)}>
                {show(o, labels)}
              </option>
            ))}
          </select>
        </div>
      );
    case "subset": {
      const list = value as Scalar[];
      return (
        <fieldset class="field" data-kind="subset" data-min={field.min} data-max={field.max}>
          <legend>
            {field.label} ({field.min === field.max ? field.min : `${field.min}–${field.max}`})
          </legend>
          {field.options.map((o) => (
            <label key={JSON.stringify(o)} class="check">
              <input
                type="checkbox"
                name={field.name}
                checked={list.includes(o)}
                onChange={(e) => {
                  const on = (e.currentTarget as HTMLInputElement).checked;
                  onChange(on ? [...list, o] : list.filter((v) => v !== o));
                }}
              />
              {show(o, labels)}
            </label>
          ))}
        </fieldset>
      );
    }
    case "multiset": {
      const list = value as Scalar[];
      return (
        <fieldset class="field" data-kind="multiset" data-min={field.min} data-max={field.max}>
          <legend>
            {field.label} ({field.min}–{field.max} in all)
          </legend>
          {field.options.map((o, i) => (
            <label key={JSON.stringify(o)} class="count">
              {show(o, labels)}
              <input
                id={`${id}-${i}`}
                type="number"
                min={0}
                max={field.max}
                value={list.filter((v) => v === o).length}
                onInput={(e) => {
                  const n = Math.max(0, Math.floor(Number((e.currentTarget as HTMLInputElement).value) || 0));
                  onChange([...list.filter((v) => v !== o), ...Array.from({ length: n }, () => o)]);
                }}
              />
            </label>
          ))}
        </fieldset>
      );
    }
    case "integer":
      return (
        <div class="field">
          <label for={id}>
            {field.label} ({field.minimum}–{field.maximum})
          </label>
          <input
            id={id}
            name={field.name}
            type="number"
            inputMode="numeric"
            min={field.minimum}
            max={field.maximum}
            step={1}
            value={value === undefined ? "" : String(value)}
            onInput={(e) => {
              const raw = (e.currentTarget as HTMLInputElement).value;
              onChange(raw === "" ? undefined : Number(raw));
            }}
          />
        </div>
      );
    case "text":
      return (
        <div class="field">
          <label for={id}>{field.label}</label>
          <textarea
            id={id}
            name={field.name}
            rows={2}
            maxLength={field.max_length}
            value={(value as string) ?? ""}
            onInput={(e) => onChange((e.currentTarget as HTMLTextAreaElement).value)}
          />
        </div>
      );
    case "partition": {
      const parts = value as number[];
      const partName = (p: number) => labels?.[`seat:${p}`] ?? `part ${p + 1}`;
      return (
        <fieldset class="field">
          <legend>{field.label}: give each to one</legend>
          {field.items.map((item, i) => (
            <div class="row" key={i}>
              <label for={`${id}-${i}`}>{show(item, labels)} goes to</label>
              <select
                id={`${id}-${i}`}
                value={String(parts[i] ?? 0)}
                onChange={(e) => {
                  const next = [...parts];
                  next[i] = Number((e.currentTarget as HTMLSelectElement).value);
                  onChange(next);
                }}
              >
                {Array.from({ length: field.parts }, (_, p) => (
                  <option key={p} value={String(p)}>
                    {partName(p)}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </fieldset>
      );
    }
    case "sequence": {
      const list = value as (Scalar | undefined)[];
      return (
        <fieldset class="field">
          <legend>{field.label} (in order)</legend>
          {list.map((v, i) => (
            <div class="row" key={i}>
              <label for={`${id}-${i}`}>{i + 1}.</label>
              <select
                id={`${id}-${i}`}
                value={v === undefined ? "" : JSON.stringify(v)}
                onChange={(e) => {
                  const raw = (e.currentTarget as HTMLSelectElement).value;
                  const next = [...list];
                  next[i] = raw === "" ? undefined : JSON.parse(raw);
                  onChange(next);
                }}
              >
                <option value="">choose…</option>
                {field.options.map((o) => (
                  <option key={JSON.stringify(o)} value={JSON.stringify(o)}>
                    {show(o, labels)}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </fieldset>
      );
    }
    case "counts": {
      const counts = value as Record<string, number>;
      return (
        <fieldset class="field" data-kind="counts" data-min-weight={field.min_weight ?? undefined}>
          <legend>{field.label}</legend>
          {field.keys.map((key, i) => (
            <div class="row" key={key}>
              <label for={`${id}-${i}`}>
                {words(key)} (0–{field.maximum[i]})
              </label>
              <input
                id={`${id}-${i}`}
                type="number"
                min={0}
                max={field.maximum[i]}
                value={counts[key] ?? 0}
                onInput={(e) => onChange({ ...counts, [key]: Math.max(0, Math.floor(Number((e.currentTarget as HTMLInputElement).value) || 0)) })}
              />
            </div>
          ))}
        </fieldset>
      );
    }
    case "groups": {
      const chosen = value as Scalar[][];
      return (
        <fieldset class="field">
          <legend>{field.label}</legend>
          {field.groups.map((group, g) => (
            <fieldset key={g} class="group" data-kind="group" data-min={group.count} data-max={group.count}>
              <legend>
                Choose {group.count} of group {g + 1}
              </legend>
              {group.options.map((o) => (
                <label key={JSON.stringify(o)} class="check">
                  <input
                    type="checkbox"
                    checked={(chosen[g] ?? []).includes(o)}
                    onChange={(e) => {
                      const on = (e.currentTarget as HTMLInputElement).checked;
                      const next = chosen.map((c) => [...c]);
                      next[g] = on ? [...(next[g] ?? []), o] : (next[g] ?? []).filter((v) => v !== o);
                      onChange(next);
                    }}
                  />
                  {show(o, labels)}
                </label>
              ))}
            </fieldset>
          ))}
        </fieldset>
      );
    }
  }
}

export interface Picked {
  command: string;
  field: string;
  value: unknown;
  n: number;
}

interface MoveFormProps {
  move: Move;
  /** What the form says on its button ("Choose action", ...). */
  title: string;
  labels?: Record<string, string> | undefined;
  busy: boolean;
  onSend: (move: Move, body: Body) => Promise<void>;
  picked?: Picked | null | undefined;
}

export function MoveForm({ move, title, labels, busy, onSend, picked }: MoveFormProps) {
  const idBase = useId();
  const [values, setValues] = useState<Record<string, unknown>>(() => Object.fromEntries(move.fields.map((f) => [f.name, initial(f)])));
  const [problem, setProblem] = useState<string | null>(null);
  const key = JSON.stringify(move);
  useEffect(() => {
    setValues(Object.fromEntries(move.fields.map((f) => [f.name, initial(f)])));
    setProblem(null);
  }, [key]);
  useEffect(() => {
    if (!picked || picked.command !== move.command) return;
    const field = move.fields.find((f) => f.name === picked.field);
    if (!field) return;
    const v = picked.value as Scalar;
    if (field.kind === "choice" && field.options.includes(v)) setValues((old) => ({ ...old, [field.name]: v }));
    if (field.kind === "subset" && field.options.includes(v))
      setValues((old) => {
        const list = (old[field.name] as Scalar[]) ?? [];
        return { ...old, [field.name]: list.includes(v) ? list.filter((x) => x !== v) : [...list, v] };
      });
  }, [picked?.n]);
  const fixed = move.fields.filter((f) => f.kind === "choice" && f.options.length === 1);
  const open = move.fields.filter((f) => !(f.kind === "choice" && f.options.length === 1));
  const caption = fixed.length
    ? `${title}: ${fixed.map((f) => `${f.label} ${show((f as { options: Scalar[] }).options[0] ?? null, labels)}`).join(", ")}`
    : title;
  async function submit(event: Event) {
    event.preventDefault();
    const body: Body = {};
    for (const field of move.fields) {
      const result = bodyValue(field, values[field.name], values, move);
      if (result.problem) {
        setProblem(result.problem);
        return;
      }
      if (result.value !== undefined) body[field.name] = result.value;
    }
    setProblem(null);
    try {
      await onSend(move, body);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  }
  return (
    <form class="move" onSubmit={submit} aria-label={caption} data-command={move.command}>
      {open.map((field) => (
        <Control key={field.name} field={field} labels={labels} idBase={idBase} value={values[field.name]} onChange={(v) => setValues((old) => ({ ...old, [field.name]: v }))} />
      ))}
      <button type="submit" disabled={busy}>
        {caption}
      </button>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
