// The live stream (GET /games/{id}/stream, Server-Sent Events) read with fetch(), not EventSource: fetch can
// send the Authorization header (EventSource cannot, and a token in a URL would end up in logs and history)
// and can see a 429's Retry-After (EventSource only retries blindly). Resumes with Last-Event-ID after any
// cut, so no event is missed or doubled (the server reads events by seq from the log); each event's seq is
// checked here too (an event at or below the last one seen is dropped, a gap forces a reconnect from the
// last seen). `event: end` stops it, with the reason.
import { API, retryAfter } from "./client";
import { auth } from "./auth";
import type { Schemas, ViewerState } from "./types";

export type FeedItem = Schemas["FeedItemOutput"];
export type StreamEnd = Schemas["StreamEnd"];
export type StreamStatus =
  | { kind: "connecting" }
  | { kind: "live" }
  | { kind: "retrying"; seconds: number; why: string }
  | { kind: "ended"; end: StreamEnd }
  | { kind: "failed"; why: string };

export interface StreamHandlers {
  onState: (state: ViewerState) => void;
  onEvent: (item: FeedItem) => void;
  onStatus: (status: StreamStatus) => void;
}

interface Message {
  event: string;
  id: string | null;
  data: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

export class GameStream {
  private controller = new AbortController();
  /** The last seq received (a snapshot's version or an event's seq); null before the first snapshot. */
  last: number | null = null;
  /** How many times it connected (the first time included). */
  connections = 0;

  constructor(
    private readonly gameId: number,
    private readonly handlers: StreamHandlers,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.controller.abort();
  }

  /** Cut the connection now (a test hook and the "reconnect" button): it resumes from the last seq. */
  private current: AbortController | null = null;
  cut(): void {
    this.current?.abort();
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    let backoff = 1;
    while (!signal.aborted) {
      this.handlers.onStatus({ kind: "connecting" });
      const attempt = new AbortController();
      this.current = attempt;
      signal.addEventListener("abort", () => attempt.abort());
      let wait = backoff;
      let why = "The connection was lost.";
      try {
        const headers: Record<string, string> = { Accept: "text/event-stream" };
        const token = auth.token();
        if (token) headers.Authorization = `Bearer ${token}`;
        if (this.last !== null) headers["Last-Event-ID"] = String(this.last);
        this.connections += 1;
        const response = await fetch(`${API}/games/${this.gameId}/stream`, {
          headers,
          signal: attempt.signal,
          cache: "no-store",
          credentials: "omit",
        });
        if (response.status === 429) {
          let problem = null;
          try {
            problem = await response.json();
          } catch {
            /* no body */
          }
          wait = retryAfter(response, problem);
          why = "Too many requests: waiting as the server asks.";
        } else if (!response.ok || !response.body) {
          let detail = `The stream answered ${response.status}.`;
          try {
            const problem = await response.json();
            if (problem?.detail) detail = problem.detail;
          } catch {
            /* not JSON */
          }
          if (response.status === 401) {
            auth.expired();
            this.handlers.onStatus({ kind: "failed", why: "Your login is no longer valid (the token was revoked). Log in again." });
            return;
          }
          if (response.status === 404 || response.status === 403) {
            this.handlers.onStatus({ kind: "failed", why: detail });
            return;
          }
          why = detail;
        } else {
          backoff = 1;
          const end = await this.read(response.body, attempt.signal);
          if (end) {
            this.handlers.onStatus({ kind: "ended", end });
            return;
          }
          wait = 1;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (!attempt.signal.aborted) why = "The connection was lost.";
        else {
          why = "Reconnecting.";
          wait = 0;
        }
      }
      if (signal.aborted) return;
      for (let left = Math.ceil(wait); left > 0 && !signal.aborted; left--) {
        this.handlers.onStatus({ kind: "retrying", seconds: left, why });
        await sleep(1000, signal);
      }
      backoff = Math.min(backoff * 2, 30);
    }
  }

  /** Reads messages until the stream closes; returns the `end` data if the server ended it. */
  private async read(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<StreamEnd | null> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined));
    let buffer = "";
    let message: Message = { event: "message", id: null, data: "" };
    let hasData = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (hasData) {
            const end = this.dispatch(message);
            if (end === "gap") return null;
            if (end) return end;
          }
          message = { event: "message", id: null, data: "" };
          hasData = false;
          continue;
        }
        if (line.startsWith(":")) {
          this.handlers.onStatus({ kind: "live" });
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "event") message.event = text;
        else if (field === "id") message.id = text;
        else if (field === "data") {
          message.data = hasData ? `${message.data}\n${text}` : text;
          hasData = true;
        }
      }
    }
  }

  private dispatch(message: Message): StreamEnd | "gap" | null {
    if (message.event === "state") {
      const state = JSON.parse(message.data) as ViewerState;
      this.last = state.version;
      this.handlers.onStatus({ kind: "live" });
      this.handlers.onState(state);
      return null;
    }
    if (message.event === "game_event") {
      const item = JSON.parse(message.data) as FeedItem;
      if (this.last !== null && item.seq <= this.last) return null; // already had it: never twice
      if (this.last !== null && item.seq !== this.last + 1) return "gap"; // reconnect from the last seen
      this.last = item.seq;
      this.handlers.onStatus({ kind: "live" });
      this.handlers.onEvent(item);
      return null;
    }
    if (message.event === "end") {
      return JSON.parse(message.data) as StreamEnd;
    }
    return null;
  }
}
