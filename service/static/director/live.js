/* global $, drawChain, refresh, state */
/* exported STALE_MS, liveTimer, live, keepFocus, changed */
/* Lexicon Judge, the director's console: following the event by itself. Every LIVE_MS it reads
   the state again (devices, rounds, the page of the record it shows and the record's integrity),
   as an action does, and draws only what changed, the focus kept; a console left open all day
   holds one page of rows and the lists it shows, replaced, never added to. A poll, not a stream
   (docs/event-guide.md, "The console follows the event"): a request every few seconds, answered
   by whichever worker is free, where a stream would hold a greenlet of a worker per open console.
   Past STALE_MS without an answer the integrity line says since when nothing is known (never
   green); the next answer, after a restart of the service or a network cut, puts it right. Part
   of static/director.js (director/state.js says how). */
const LIVE_MS = 3000, STALE_MS = 10000;
let liveTimer = null;

function live() {
  clearTimeout(liveTimer);
  if ($("console").hidden) return;
  liveTimer = setTimeout(async () => {
    if (!document.hidden && !state.busy) await refresh(true);
    drawChain();  // stale or not, by this computer's clock
    live();
  }, LIVE_MS);
}

// Back to a tab the browser had put to sleep (its timers slowed to one a minute): read at once.
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && !$("console").hidden && !state.busy) refresh(true);
});

// Redraws `container` with `draw`, and gives the focus back to the control that had it (a
// button of a row, named by its data-* attribute), so that a poll never takes it away.
function keepFocus(container, draw) {
  const had = document.activeElement, inside = had && container.contains(had) && had !== container;
  const key = inside && Object.keys(had.dataset)[0], value = key && had.dataset[key];
  draw();
  if (key) {
    const again = Array.from(container.querySelectorAll(`[data-${key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}]`))
      .find((el) => el.dataset[key] === value);
    if (again) again.focus({ preventScroll: true });
  }
}

// Whether `value` differs from what was drawn last under `name` (and remembers it).
function changed(name, value) {
  const text = JSON.stringify(value);
  if (state.drawn[name] === text) return false;
  state.drawn[name] = text;
  return true;
}
