// A form built from a JSON schema of the spec (game options, a command's body): one labelled control per
// property, validated as the schema says (the server validates the same schema and its problem is shown too).
import { useId } from "preact/hooks";

import type { JsonSchema } from "../api/jsonschema";

export type Value = unknown;

/** A schema description as a hint: without the enum's generated "* `x` - x" lines and the backticks. */
export function cleanHint(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*\*\s/.test(line))
    .join(" ")
    .replace(/``?/g, "")
    .trim();
}

export function words(name: string): string {
  const text = name.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The first variant of a oneOf that is a plain enum or scalar (a form offers that one). */
function simple(schema: JsonSchema): JsonSchema {
  const variants = schema.oneOf ?? schema.anyOf;
  if (!variants) return schema;
  return variants.find((v) => v.enum) ?? variants.find((v) => v.type !== "array" && v.type !== "object") ?? variants[0] ?? schema;
}

/** What is wrong with a value, in words, by the schema (null: fine). Empty optional values are fine. */
export function check(schema: JsonSchema, value: Value, required: boolean): string | null {
  const s = simple(schema);
  if (value === undefined || value === "") return required ? "Required." : null;
  if (value === null) return s.nullable || !required ? null : "Required.";
  if (s.enum && !s.enum.includes(value as never)) return `One of ${s.enum.map(String).join(", ")}.`;
  if (s.type === "integer" || s.type === "number") {
    if (typeof value !== "number" || Number.isNaN(value)) return "A number.";
    if (s.type === "integer" && !Number.isInteger(value)) return "A whole number.";
    if (s.minimum !== undefined && value < s.minimum) return `At least ${s.minimum}.`;
    if (s.maximum !== undefined && value > s.maximum) return `At most ${s.maximum}.`;
  }
  if (s.type === "string" && typeof value === "string") {
    if (s.minLength !== undefined && value.length < s.minLength) return `At least ${s.minLength} characters.`;
    if (s.maxLength !== undefined && value.length > s.maxLength) return `At most ${s.maxLength} characters.`;
  }
  if (s.type === "array" && Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) return `At least ${s.minItems} items.`;
    if (s.maxItems !== undefined && value.length > s.maxItems) return `At most ${s.maxItems} items.`;
  }
  return null;
}

/** Problems of an object value, keyed by dotted path (as the server's `errors` are). */
export function checkObject(schema: JsonSchema, value: Record<string, Value>, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const path = prefix + name;
    const v = value[name];
    if (prop.type === "object" && prop.properties) {
      Object.assign(out, checkObject(prop, (v as Record<string, Value>) ?? {}, `${path}.`));
      continue;
    }
    const problem = check(prop, v, (schema.required ?? []).includes(name));
    if (problem) out[path] = problem;
  }
  return out;
}

/** The value without the fields left empty (the server's defaults apply to them). */
export function prune(value: Record<string, Value>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === "") continue;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const inner = prune(v as Record<string, Value>);
      if (Object.keys(inner).length) out[k] = inner;
      continue;
    }
    out[k] = v;
  }
  return out;
}

interface FieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  value: Value;
  required: boolean;
  error?: string | undefined;
  onChange: (value: Value) => void;
  /** Shown for an empty value: what the server will use. */
  placeholder?: string | undefined;
}

export function SchemaField({ name, path, schema, value, required, error, onChange, placeholder }: FieldProps) {
  const id = useId();
  const s = simple(schema);
  const label = words(name);
  const hint = schema.description ?? s.description;
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  let control;
  if (s.enum) {
    control = (
      <select
        id={id}
        name={path}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        value={value === undefined ? "" : JSON.stringify(value)}
        onChange={(e) => {
          const raw = (e.currentTarget as HTMLSelectElement).value;
          onChange(raw === "" ? undefined : JSON.parse(raw));
        }}
      >
        <option value="">{required ? "choose…" : placeholder ? `default (${placeholder})` : "default"}</option>
        {s.enum.map((option) => (
          <option key={String(option)} value={JSON.stringify(option)}>
            {option === null ? "none" : String(option)}
          </option>
        ))}
        {s.nullable && !s.enum.includes(null) && <option value="null">none</option>}
      </select>
    );
  } else if (s.type === "boolean") {
    control = (
      <select
        id={id}
        name={path}
        aria-describedby={describedBy}
        value={value === undefined ? "" : String(value)}
        onChange={(e) => {
          const raw = (e.currentTarget as HTMLSelectElement).value;
          onChange(raw === "" ? undefined : raw === "true");
        }}
      >
        {!required && <option value="">{placeholder ? `default (${placeholder})` : "default"}</option>}
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  } else if (s.type === "integer" || s.type === "number") {
    control = (
      <input
        id={id}
        name={path}
        type="number"
        inputMode="numeric"
        min={s.minimum}
        max={s.maximum}
        step={s.type === "integer" ? 1 : "any"}
        placeholder={placeholder ?? (s.nullable ? "none" : "default")}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        value={value === undefined || value === null ? "" : String(value)}
        onInput={(e) => {
          const raw = (e.currentTarget as HTMLInputElement).value;
          onChange(raw === "" ? undefined : Number(raw));
        }}
      />
    );
  } else if (s.type === "array" && s.items?.enum) {
    const chosen = Array.isArray(value) ? (value as unknown[]) : [];
    control = (
      <fieldset id={id} aria-describedby={describedBy}>
        <legend class="visually-hidden">{label}</legend>
        {s.items.enum.map((option) => (
          <label key={String(option)} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(option)}
              onChange={(e) => {
                const on = (e.currentTarget as HTMLInputElement).checked;
                onChange(on ? [...chosen, option] : chosen.filter((c) => c !== option));
              }}
            />
            {String(option)}
          </label>
        ))}
      </fieldset>
    );
  } else if (s.type === "array" || s.type === "object") {
    // a structured value the form has no widget for: JSON text (validated on submit by the server)
    control = (
      <textarea
        id={id}
        name={path}
        rows={2}
        aria-describedby={describedBy}
        placeholder="JSON"
        value={value === undefined ? "" : JSON.stringify(value)}
        onInput={(e) => {
          const raw = (e.currentTarget as HTMLTextAreaElement).value;
          try {
            onChange(raw === "" ? undefined : JSON.parse(raw));
          } catch {
            onChange(raw);
          }
        }}
      />
    );
  } else {
    control = (
      <input
        id={id}
        name={path}
        type="text"
        maxLength={s.maxLength}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        value={typeof value === "string" ? value : ""}
        onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>
        {label}
        {required ? " (required)" : ""}
      </label>
      {control}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {cleanHint(hint)}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

interface ObjectProps {
  schema: JsonSchema;
  value: Record<string, Value>;
  errors: Record<string, string>;
  onChange: (value: Record<string, Value>) => void;
  prefix?: string;
  defaults?: Record<string, unknown> | undefined;
}

/** Every property of an object schema; nested objects as their own fieldset. */
export function SchemaObject({ schema, value, errors, onChange, prefix = "", defaults }: ObjectProps) {
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, prop]) => {
        const path = prefix + name;
        const def = defaults?.[name];
        if (prop.type === "object" && prop.properties) {
          return (
            <fieldset key={path} class="group">
              <legend>{words(name)}</legend>
              <SchemaObject
                schema={prop}
                prefix={`${path}.`}
                value={(value[name] as Record<string, Value>) ?? {}}
                errors={errors}
                defaults={def && typeof def === "object" ? (def as Record<string, unknown>) : undefined}
                onChange={(inner) => onChange({ ...value, [name]: inner })}
              />
            </fieldset>
          );
        }
        return (
          <SchemaField
            key={path}
            name={name}
            path={path}
            schema={prop}
            value={value[name]}
            required={(schema.required ?? []).includes(name)}
            error={errors[path]}
            placeholder={def === undefined ? undefined : def === null ? "none" : typeof def === "object" ? JSON.stringify(def) : String(def)}
            onChange={(v) => onChange({ ...value, [name]: v })}
          />
        );
      })}
    </>
  );
}
