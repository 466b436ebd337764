// The one way the page talks to the server: the public API under /api/v1/, with the player's bearer token,
// problems (application/problem+json) turned into ApiError with the problem's words, 429 waited out once
// (Retry-After), ETags kept per URL for GETs that offer them (If-None-Match -> 304 reuses the last body).
import type { Problem } from "./types";
import { auth } from "./auth";

export const API = "/api/v1";

export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem | null;
  constructor(status: number, problem: Problem | null, fallback: string) {
    super(problem ? describeProblem(problem) : fallback);
    this.status = status;
    this.problem = problem;
  }
  get code(): string {
    return this.problem?.code ?? (this.status === 0 ? "network_error" : `http_${this.status}`);
  }
}

/** A problem in words: its detail, and each field's messages ("seats: Ensure this value ..."). `labels` names
 * a field the way the form shows it ("time_zone" -> "Time zone"); other fields are spelled out. */
export function describeProblem(problem: Problem, labels: Record<string, string> = {}): string {
  const parts = [problem.detail || problem.title];
  if (problem.errors) {
    for (const [field, messages] of Object.entries(problem.errors)) {
      const name = labels[field] ?? field.replace(/_/g, " ");
      const label = field === "non_field_errors" ? "" : `${name}: `;
      parts.push(`${label}${messages.join(" ")}`);
    }
  }
  return parts.filter(Boolean).join(" — ");
}

export function errorText(error: unknown, labels?: Record<string, string>): string {
  if (error instanceof ApiError) return error.problem && labels ? describeProblem(error.problem, labels) : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

const etags = new Map<string, { etag: string; body: unknown }>();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Seconds to wait from a 429 (Retry-After header, else the problem's retry_after, else 2). */
export function retryAfter(response: Response, problem: Problem | null): number {
  const header = Number(response.headers.get("Retry-After"));
  if (Number.isFinite(header) && header > 0) return Math.min(header, 120);
  return Math.min(problem?.retry_after ?? 2, 120);
}

async function readProblem(response: Response): Promise<Problem | null> {
  const type = response.headers.get("Content-Type") ?? "";
  if (!type.includes("json")) return null;
  try {
    return (await response.json()) as Problem;
  } catch {
    return null;
  }
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send without the token (sign-up, log-in). */
  anonymous?: boolean;
  signal?: AbortSignal;
  /** false: a 429 is reported at once (its words say when to try again) instead of waited out. */
  retry?: boolean;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const url = path.startsWith("/") ? path : `${API}/${path}`;
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  const token = auth.token();
  if (token && !options.anonymous) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const cached = method === "GET" ? etags.get(url) : undefined;
  if (cached) headers["If-None-Match"] = cached.etag;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
        credentials: "omit",
        cache: "no-store",
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ApiError(0, null, "The server cannot be reached. Check your connection and try again.");
    }
    if (response.status === 304 && cached) return cached.body as T;
    if (response.ok) {
      if (response.status === 204) return undefined as T;
      const body = (await response.json()) as T;
      const etag = response.headers.get("ETag");
      if (method === "GET" && etag) etags.set(url, { etag, body });
      return body;
    }
    const problem = await readProblem(response);
    if (response.status === 429 && attempt < 2 && options.retry !== false) {
      await sleep(retryAfter(response, problem) * 1000);
      continue;
    }
    if (response.status === 401 && token && !options.anonymous) auth.expired();
    throw new ApiError(
      response.status,
      problem,
      `The server answered ${response.status} ${response.statusText || ""}`.trim(),
    );
  }
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>("GET", path, options),
  post: <T>(path: string, body: unknown = {}, options?: RequestOptions) =>
    request<T>("POST", path, { ...options, body }),
  put: <T>(path: string, body: unknown, options?: RequestOptions) =>
    request<T>("PUT", path, { ...options, body }),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) =>
    request<T>("PATCH", path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => request<T>("DELETE", path, options),
};

/** A fresh Idempotency-Key for a command (so a retried POST is applied once). */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
