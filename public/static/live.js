// @ts-check
/* global document, window, location, fetch, WebSocket, DOMParser, URL, CSS, HTMLElement, setTimeout, setInterval, clearInterval */
/**
 * Live leaderboard (docs/pages.md "Live updates"): an enhancement only — the page is complete
 * without it. It listens on the leaderboard's WebSocket; on a `rank-changed` message it
 * fetches this same page again (server-rendered, so rows look exactly as on a load) and swaps
 * the board region in place, keeping keyboard focus where it was, marking the rows that
 * moved and announcing the change to screen readers. If the fetched page is older than the
 * message (the edge caches the board version for ~2 s) it tries again shortly. The socket
 * reconnects with backoff and re-reads the board after a reconnect.
 */

const PING_MS = 30_000;
const RETRY_PAGE_MS = 1_000;
const MAX_PAGE_RETRIES = 6;
const COALESCE_MS = 250;

const initial = document.querySelector("[data-live-board]");
if (initial instanceof HTMLElement && "WebSocket" in window && initial.dataset.ws) {
  startLiveBoard(initial, initial.dataset.ws);
}

/**
 * @param {HTMLElement} region the board section (`data-live-board`)
 * @param {string} wsPath the WebSocket path of this challenge's board
 */
function startLiveBoard(region, wsPath) {
  const status = /** @type {HTMLElement} */ (region.querySelector("[data-live-status]"));
  const announcer = document.createElement("div");
  announcer.className = "visually-hidden";
  announcer.setAttribute("role", "status");
  announcer.setAttribute("aria-live", "polite");
  announcer.dataset.liveAnnouncer = "";
  document.body.append(announcer);

  let failures = 0;
  let everOpened = false;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let pinger;
  let wanted = Number(region.dataset.version ?? 0);
  /** @type {{ agentId: string; rank: number | null; previousRank: number | null; score: number }[]} */
  let changes = [];
  let scheduled = false;
  let running = false;

  /** @param {"live" | "offline"} state @param {string} text */
  function setStatus(state, text) {
    if (!status) return;
    status.hidden = false;
    status.dataset.state = state;
    status.textContent = text;
  }

  function connect() {
    const url = new URL(wsPath, location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      failures = 0;
      setStatus("live", "Live: this leaderboard updates as scores arrive.");
      pinger = setInterval(
        () => socket.readyState === WebSocket.OPEN && socket.send("ping"),
        PING_MS,
      );
      // After a reconnect, whatever changed while the socket was down is read now.
      if (everOpened) schedule();
      everOpened = true;
    });
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string" || event.data === "pong") return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!message || message.type !== "rank-changed" || typeof message.version !== "number") {
        return;
      }
      wanted = Math.max(wanted, message.version);
      if (Array.isArray(message.changes)) changes = changes.concat(message.changes);
      schedule();
    });
    socket.addEventListener("close", () => {
      clearInterval(pinger);
      failures += 1;
      setStatus("offline", "Live updates paused: reconnecting…");
      setTimeout(connect, Math.min(30_000, 1_000 * 2 ** Math.min(failures, 5)));
    });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      if (running) {
        schedule();
        return;
      }
      running = true;
      refresh(0).finally(() => {
        running = false;
      });
    }, COALESCE_MS);
  }

  /** @param {number} attempt */
  async function refresh(attempt) {
    let next;
    try {
      const res = await fetch(location.href, {
        cache: "no-cache",
        headers: { Accept: "text/html" },
      });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      next = doc.querySelector("[data-live-board]");
    } catch {
      return;
    }
    if (!(next instanceof HTMLElement)) return;
    const version = Number(next.dataset.version ?? 0);
    if (version < wanted && attempt < MAX_PAGE_RETRIES) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAGE_MS));
      return refresh(attempt + 1);
    }
    swap(next);
  }

  /** Where focus is inside the board, as something that survives a re-render. */
  function focusKey() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !region.contains(active)) return null;
    const row = active.closest("[data-agent-id]");
    if (row instanceof HTMLElement) {
      const links = [...row.querySelectorAll("a, [tabindex]")];
      return { agentId: row.dataset.agentId ?? "", index: links.indexOf(active), text: "" };
    }
    return { agentId: "", index: -1, text: active.className + "|" + (active.textContent ?? "") };
  }

  /** @param {{ agentId: string; index: number; text: string } | null} key */
  function restoreFocus(key) {
    if (!key) return;
    let target;
    if (key.agentId) {
      const row = region.querySelector(`[data-agent-id="${CSS.escape(key.agentId)}"]`);
      const links = row ? [...row.querySelectorAll("a, [tabindex]")] : [];
      target = links[key.index] ?? links[0] ?? null;
    } else {
      target =
        [...region.querySelectorAll("a, [tabindex]")].find(
          (el) => el.className + "|" + (el.textContent ?? "") === key.text,
        ) ?? null;
    }
    if (!(target instanceof HTMLElement)) {
      // The focused element is gone (its row left this page): keep the reader in the board.
      target = region.querySelector("h2");
      target?.setAttribute("tabindex", "-1");
    }
    if (target instanceof HTMLElement) target.focus();
  }

  /** @param {HTMLElement} next the freshly rendered board region */
  function swap(next) {
    const key = focusKey();
    const moved = changes;
    changes = [];
    region.dataset.version = next.dataset.version ?? region.dataset.version;
    region.replaceChildren(...[...next.childNodes].map((n) => document.importNode(n, true)));
    const freshStatus = region.querySelector("[data-live-status]");
    if (freshStatus && status) freshStatus.replaceWith(status);
    for (const change of moved) {
      const row = region.querySelector(`tr[data-agent-id="${CSS.escape(change.agentId)}"]`);
      row?.classList.remove("changed");
      row?.classList.add("changed");
    }
    restoreFocus(key);
    announce(moved);
  }

  /** @param {{ agentId: string; rank: number | null; previousRank: number | null; score: number }[]} moved */
  function announce(moved) {
    const first = moved[0];
    let text = "The leaderboard was updated.";
    if (first) {
      const row = region.querySelector(`tr[data-agent-id="${CSS.escape(first.agentId)}"]`);
      const name = row?.querySelector(".agent-name")?.textContent ?? "An agent";
      text =
        first.rank === null
          ? `Leaderboard updated: ${name} scored ${first.score}.`
          : `Leaderboard updated: ${name} is now rank ${first.rank} with a score of ${first.score}.`;
      const others = new Set(moved.slice(1).map((c) => c.agentId)).size;
      if (others > 0) text += ` ${others} other ${others === 1 ? "agent" : "agents"} moved down.`;
    }
    announcer.textContent = text;
  }

  connect();
}
