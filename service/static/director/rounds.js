/* global $, API, ask, clock, data, deviceName, failure, openRound, refresh, say, state, t */
/* exported drawRound, drawLexicon */
/* Lexicon Judge, the director's console: its rounds (the open one or the next one's number,
   opening and closing, the last closed round's head) and the event's lexicon above them. Part of
   static/director.js (director/state.js says how). */
function drawRound() {
  const open = openRound(), last = state.rounds[state.rounds.length - 1];
  $("round-state").textContent = open ? t("roundOpenState", { n: open.number, time: clock(open.opened) }) : t("roundNone");
  $("round-state").className = "state " + (open ? "open" : "closed");
  $("round-open").hidden = Boolean(open);
  $("round-number").hidden = $("round-number").previousElementSibling.hidden = Boolean(open);
  $("round-close").hidden = !open;
  if (!open) $("round-number").value = last ? last.number + 1 : 1;
  // The last closed round's head, large enough to copy onto its sheet: an export is checked
  // against it later with `lexicon records verify --head SEQ:HASH`. Its first 16 hex digits, in
  // groups of 4: 64 bits, which no record rewritten on purpose is made to end in (8 could be).
  const closed = !open && last && last.closed && last.head_hash ? last : null;
  $("round-head").hidden = !closed;
  if (closed) {
    $("round-head-title").textContent = t("roundHeadTitle", { n: closed.number });
    $("head-seq").textContent = closed.head_seq;
    $("head-prefix").textContent = closed.head_hash.slice(0, 16).match(/.{4}/g).join(" ");
    $("head-full").textContent = closed.head_hash;
  }
  // Judges' phones silent for a minute when it closed may hold its verdicts: the head is not final
  // until they have synced, or the director confirms it (POST v1/rounds/N/final).
  const waiting = closed && closed.pending && closed.pending.length ? closed : null, names = waiting ?
    waiting.pending.map((d) => d.name || deviceName(d.id) || "#" + d.id).join(", ") : "";
  $("round-head").classList.toggle("pending", Boolean(waiting));
  $("round-pending").textContent = waiting ? t("roundPending", { n: waiting.number, devices: names }) :
    closed && closed.final ? t("roundFinal", { time: clock(closed.final) }) : "";
  $("round-pending").hidden = !$("round-pending").textContent;
  $("round-confirm").hidden = !waiting;
  $("round-confirm").onclick = waiting && (async () => {
    if (!window.confirm(t("roundConfirmAsk", { n: waiting.number, devices: names }))) return;
    const result = await ask("POST", `${API.rounds}/${waiting.number}/final`, {});
    say("round-error", !(result.status >= 200 && result.status < 300 || result.status === 401) && (() => failure(result)));
    await refresh();
  });
}

// The event's lexicon (GET v1/event), in full: what every table device judges with.
function drawLexicon() {
  const lexicon = state.lexicon, box = $("event-lexicon");
  if (lexicon === undefined) { box.textContent = ""; return; }
  const known = lexicon && data.lexicons.find((l) => l.id === lexicon.id);
  box.textContent = lexicon ? t("eventLexicon", { name: (known && known.name) || lexicon.name || lexicon.id,
    id: lexicon.id, version: lexicon.version, checksum: lexicon.checksum }) : t("eventLexiconNone");
}

// Asked first, as closing is: a round opened by mistake closes lookups and takes a number for good.
async function roundOpen(event) {
  event.preventDefault();
  const number = Number($("round-number").value), max = Number($("round-number").max);
  if (!Number.isInteger(number) || number < 1 || number > max) {
    say("round-error", () => t("roundNumberBad", { max }));
    $("round-number").focus();
    return;
  }
  if (state.rounds.some((r) => r.number === number)) {
    say("round-error", () => t("roundPlayed", { n: number }));
    $("round-number").focus();
    return;
  }
  if (!window.confirm(t("roundOpenConfirm", { n: number }))) return;
  const result = await ask("POST", API.rounds, { number });
  say("round-error", !(result.status >= 200 && result.status < 300 || result.status === 401) && (() => failure(result)));
  await refresh();
}

async function roundClose() {  // asked first, saying it is final: a closed round is never opened again
  const open = openRound();
  if (!open || !window.confirm(t("roundCloseConfirm", { n: open.number }))) return;
  const result = await ask("POST", API.close, {});
  say("round-error", !(result.status >= 200 && result.status < 300 || result.status === 401) && (() => failure(result)));
  await refresh();
}

$("round-form").addEventListener("submit", roundOpen);
$("round-close").addEventListener("click", roundClose);
