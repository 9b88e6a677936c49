/* global LexiconCommon, LexiconDawg */
/* exported LexiconOffline */
/* Lexicon Judge: the judge's page keeps judging when the network goes.

   Loaded after first paint (judge.js adds lexicon.js, offline-data.js and this file from
   data.later), so the page never waits for it. It fetches the browser lexicon of the lexicon in
   use (GET v1/lexicons/{id}/browser; of the other one when the judge switches), verifies it
   (LexiconDawg.load: checksum, structure, word count) and checks that it is the lexicon the page
   lists (its full checksum, from offline-data.js), keeps it in IndexedDB keyed by that checksum
   (another copy of the same lexicon id is dropped), and marks the page:
   document.documentElement.dataset.offline = "ready" (and its mark in the lexicon's line), or
   "failed" when a download is refused as corrupt: such bytes are never used.

   judge.js asks the service first, as always; when it cannot be reached (a network error, no
   answer in 3 s, a 5xx, an answer that is no JSON: a captive portal) it calls LexiconOffline.judge, which gives the same joint verdict on this
   phone, never which word, on the same verdict screen, saying it was judged here. In an event
   (LEXICON_EVENT) only a paired judge device judges here (a table device says to call a judge:
   event.js), keeps each such verdict in IndexedDB and sends it to the record when the service is
   back, once (the idempotency key event.js made for the challenge), marked offline with the
   phone's time.

   The interface (window.LexiconOffline), also for a page with no service at all:
     standalone          true when LexiconOfflineData.standalone: judge.js never asks a service
     load(bytes)         verify a browser lexicon's bytes and judge with it: a Promise of the
                         LexiconDawg lexicon (rejected, and dataset.offline = "failed", if refused)
     ready(id)           whether this phone can judge the lexicon `id`
     judge(item, sent, slip, play)  judge.js's call: true when it showed a verdict
     served(identity)    judge.js's call after a verdict of the service (its `lexicon`): a copy
                         of another list than the service's is dropped ("stale")
     flush()             send the verdicts waiting for the record now (a Promise)
     waiting()           a Promise of how many wait */
(() => {
  "use strict";
  const J = window.LexiconJudge, DATA = window.LexiconOfflineData || {}, root = document.documentElement;
  const RETRY_MS = 30000;  // a lexicon not kept yet, and the verdicts waiting, are tried again this often
  // A waiting verdict's send with no answer by then is given up, and tried again with the rest: a
  // hall's Wi-Fi may swallow a request (no answer, no reset), which the phone's TCP waits on for
  // many minutes, and the one flush under way held every verdict, and the round's head, that long.
  // Safe: sent again, its key gets the row the service may have written meanwhile. Well over the
  // service's own wait for the record's lock (5 s).
  const SEND_MS = 15000;
  const DB = "lexicon-judge" + (root.dataset.ns || ""), EVENT = J.data.event ? J.EVENT : null;
  const lexicons = {}, fetching = {}, states = {}, counts = { waiting: 0, refused: 0 };
  const GIVEN_UP = { failed: true, stale: true };  // states of a lexicon this tab never fetches again
  // Verdicts this tab could not keep in IndexedDB (a browser that refuses it, as some private
  // windows do): they wait here while the tab is open, rather than being lost unsaid.
  const memory = { waiting: [], refused: [] };
  let opened = null, flushing = null;

  const t = (key, values) => LexiconCommon.fill(DATA.texts[J.state.ui][key], values);

  // -- IndexedDB: the lexicons kept (by checksum), the verdicts waiting and those the record refused

  function database() {
    return opened = opened || new Promise((resolve, reject) => {
      const request = indexedDB.open(DB, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore("lexicons", { keyPath: "checksum" });
        request.result.createObjectStore("waiting", { keyPath: "idempotency_key" });
        request.result.createObjectStore("refused", { keyPath: "idempotency_key" });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  // One transaction on `store`: `work(store)` may return a request, whose result is the answer.
  function stored(store, mode, work) {
    return database().then((db) => new Promise((resolve, reject) => {
      const transaction = db.transaction(store, mode), request = work(transaction.objectStore(store));
      transaction.oncomplete = () => resolve(request && request.result);
      transaction.onerror = transaction.onabort = () => reject(transaction.error);
    }));
  }

  // -- the mark in the lexicon's line, and dataset.offline, for the lexicon in use -------------

  // The page drew both in their place (templates/judge.html): the mark in the lexicon's line, an
  // icon whose words are said, not shown (the lexicon's name needs the room), with the sentence in
  // the lexicon's identity, one tap away; the note under the line only when there is more to say (a
  // damaged copy, a list replaced, verdicts waiting). Both announced (aria-live), without being a
  // second role=status: the verdict is that.
  function draw() {
    const id = J.state.lexicon, state = offlineDevice() ? states[id] : undefined;
    const mark = document.getElementById("offline-mark"), note = document.getElementById("offline-note");
    const ready = document.getElementById("offline-ready") || sentence();
    if (state === "ready" || state === "failed") root.dataset.offline = state;
    else delete root.dataset.offline;
    // Over plain HTTP on the venue's network (no secure context: no service worker), the phone
    // keeps the lexicon but not the page: it judges offline only while this tab stays open, and
    // says so, under the line too (its place kept from the first paint: judge/page.js).
    const tab = state === "ready" && !isSecureContext;
    mark.textContent = state !== "ready" ? "" : tab ? t("markTab") : t("mark");
    mark.hidden = !mark.textContent;
    mark.classList.toggle("tab", tab);
    mark.title = ready.textContent = state !== "ready" ? "" : tab ? t("readyTab") : t("ready");
    ready.hidden = !ready.textContent;
    const lines = [state === "failed" ? t("failed") : state === "stale" ? t("stale") : tab ? t("tab") : ""];
    if (counts.waiting) lines.push(t("waiting", { n: counts.waiting }));
    if (counts.refused) lines.push(t("refused", { n: counts.refused }));
    // A line that goes (the verdicts waiting recorded once the network is back) leaves its place
    // while the page is in view: nothing under it moves up under the judge's thumb. The note is
    // fitted again under a verdict's screen, which covers the page.
    const kept = J.state.shown ? 0 : note.getBoundingClientRect().height;
    note.textContent = lines.filter(Boolean).join(" · ");
    note.hidden = !note.textContent && !kept;
    note.style.minHeight = kept ? kept + "px" : "";
  }

  // The mark's sentence, in the lexicon's identity (one tap away, closed when the page loads):
  // made here, after first paint, so that the page does not carry it.
  function sentence() {
    const line = document.createElement("p");
    line.id = "offline-ready";
    line.className = "details";
    document.getElementById("lexicon-details").after(line);
    return line;
  }

  function settle(id, state) {
    states[id] = state;
    draw();
  }

  // -- the lexicons ------------------------------------------------------------------------------

  // Is this phone one that judges offline? Outside an event, yes; in one, a paired judge device,
  // as the service last said: never a table device (whose players would hold a dictionary), a
  // lookup device or an unpaired page, which neither use nor announce a copy, nor ask for one.
  const offlineDevice = () => !EVENT || EVENT.role() === "judge";
  const allowed = offlineDevice;

  // In an event only a judge device keeps a lexicon: a copy kept from before (as a judge's phone,
  // or on the plain page) is deleted once the service says this phone is a table's, a lookup's,
  // no device, or no longer paired (a judge's phone revoked, perhaps lost).
  function forget() {
    if (!EVENT || EVENT.role() === "judge") return;
    Object.keys(lexicons).forEach((id) => { delete lexicons[id]; });
    stored("lexicons", "readwrite", (store) => store.clear()).catch(() => undefined).then(draw);
  }

  // Verified bytes of the lexicon `id` (by default the one the file names) as the page lists it
  // (its full checksum), or a rejection: another lexicon's file, even one the page lists (the
  // other list of the same language), is never used in its place, nor kept under its checksum.
  function open(bytes, id) {
    return LexiconDawg.load(bytes).then((lexicon) => {
      const named = id === undefined ? lexicon.header.id : id, wanted = (DATA.checksums || {})[named];
      if (lexicon.header.id !== named || (wanted && wanted !== lexicon.checksum)) {
        throw new Error("browser lexicon: not the lexicon this page lists as " + named);
      }
      return lexicon;
    });
  }

  function load(bytes) {
    return open(bytes).then((lexicon) => {
      lexicons[lexicon.header.id] = lexicon;
      settle(lexicon.header.id, "ready");
      return lexicon;
    }, (error) => {
      root.dataset.offline = "failed";
      throw error;
    });
  }

  // The lexicon `id` kept on this phone if it is the one listed, else downloaded and kept.
  function prepare(id) {
    const checksum = (DATA.checksums || {})[id];
    // In an event, only a paired judge device (the service gives it to no one else).
    if (!checksum || lexicons[id] || fetching[id] || states[id] in GIVEN_UP || !offlineDevice()) return;
    fetching[id] = stored("lexicons", "readonly", (store) => store.get(checksum))
      .catch(() => null)
      .then((kept) => kept ? open(kept.bytes, id).catch(() => download(id, checksum)) : download(id, checksum))
      .then((lexicon) => {
        if (!lexicon) return;
        lexicons[id] = lexicon;
        settle(id, "ready");
      }, () => settle(id, "failed"))
      .finally(() => { delete fetching[id]; });
  }

  function download(id, checksum) {
    const headers = {}, token = J.token();
    if (token) headers.Authorization = "Bearer " + token;
    // Asked for by its checksum (?v=, which the service ignores): the file is cached for a year,
    // immutable, and a new list under the same id must not be answered from the browser's cache.
    const url = "v1/lexicons/" + encodeURIComponent(id) + "/browser?v=" + checksum;
    return fetch(url, { headers, credentials: "same-origin", redirect: "error" })
      // Refused, unreachable, cut off while it came (the hall's Wi-Fi), or not the service (a
      // captive portal's page, not an octet-stream): tried again later, never called damaged.
      .then((response) => response.ok && /^application\/octet-stream/.test(response.headers.get("Content-Type")) ?
        response.arrayBuffer() : null)
      .catch(() => null)
      .then((bytes) => bytes && open(bytes, id).then((lexicon) => keep(id, checksum, bytes).then(() => lexicon)));
  }

  // Kept by checksum; every other copy of the same lexicon id is dropped. Without IndexedDB
  // (a browser that refuses it) the lexicon still judges in this tab.
  function keep(id, checksum, bytes) {
    return stored("lexicons", "readwrite", (store) => {
      store.openCursor().onsuccess = (event) => {
        const cursor = event.target.result;
        if (!cursor) return;
        if (cursor.value.id === id && cursor.value.checksum !== checksum) cursor.delete();
        cursor.continue();
      };
      store.put({ checksum, id, bytes });
    }).catch(() => undefined);
  }

  // judge.js, after each verdict of the service: if the service judges with another list than the
  // one this page lists (reloaded since the page was loaded), the copy is of a list no longer in
  // use: dropped, never judging again in this tab, and the page asks to be reloaded.
  function served(identity) {
    draw();  // under the verdict's screen
    const id = identity && identity.id, listed = (DATA.checksums || {})[id];
    if (!listed || listed === identity.checksum) return;
    delete lexicons[id];
    settle(id, "stale");
  }

  // -- judging, and the verdicts waiting for the record -------------------------------------------

  function judge(item, sent, slip, play) {
    const lexicon = lexicons[item.id];
    if (!lexicon || !allowed()) return false;
    if (EVENT && EVENT.early()) return true;  // a judge's gap (LEXICON_RATE_JUDGE) holds offline too
    const result = lexicon.judge(J.readers[item.language], sent.map((s) => s.typed));
    if (typeof result.valid !== "boolean") return false;  // the page reads words as the service does: not reached
    const header = lexicon.header;
    const identity = { name: header.name, version: header.version, checksum: lexicon.checksum };
    J.showVerdict(result.valid, sent.map((s) => s.word), identity, slip);
    draw();
    J.EVENT.verdict({ lexicon: identity });  // in an event, a table device's full checksum; no record number
    const record = EVENT && play && play.idempotency_key;
    const line = J.element("p", "v-second v-offline", t("here"));
    if (record) line.append(document.createElement("br"), t("queued"));
    line.dataset.key = record || "";
    J.verdict.insertBefore(line, J.verdict.querySelector(".v-lexicon"));
    if (record) {
      // With the round it showed (the slip's; null: none), which the record files it in if open then,
      // and the verdict it showed: one the service judges otherwise is refused, never recorded reversed.
      const waiting = JSON.parse(JSON.stringify({
        ...play, offline: true, device_time: deviceTime(), checksum: lexicon.checksum,
        round: Number(slip.round) || null, shown_valid: result.valid }));
      // After a flush under way, which read the queue before this verdict was in it.
      stored("waiting", "readwrite", (store) => store.put(waiting)).catch(() => { memory.waiting.push(waiting); })
        .then(() => (flushing || Promise.resolve()).then(flush));
    }
    return true;
  }

  // The phone's clock as the record writes times: 2026-11-22T10:31:07.120000Z.
  const deviceTime = () => new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

  // A waiting verdict sent to the record as judge.js asks (common.js); status 0: no answer.
  function send(play) {
    return LexiconCommon.ask("POST", J.data.challenge, { body: play, token: J.token(), timeout: SEND_MS })
      .then((result) => ({
        response: { ok: result.status >= 200 && result.status < 300, status: result.status }, body: result.body,
      }));
  }

  // Each waiting verdict in turn, until the service cannot be reached or asks to wait. Recorded
  // (or recorded already: the same key), it leaves the queue; refused by the record (another
  // lexicon now, a device that may not, a verdict the service gives otherwise), it is kept apart,
  // counted on the page for the director.
  function flush() {
    if (!EVENT) return Promise.resolve(0);
    flushing = flushing || stored("waiting", "readonly", (store) => store.getAll()).catch(() => []).then(async (kept) => {
      // Oldest first, as they were judged (IndexedDB gives them in the order of their random keys):
      // the record's numbers follow the games. The phone's times sort as text; a stable sort keeps
      // the tab's own order for any two of the same millisecond.
      const queue = memory.waiting.concat(kept || [])
        .sort((a, b) => a.device_time < b.device_time ? -1 : a.device_time > b.device_time ? 1 : 0);
      for (const play of queue) {
        const { response, body } = await send(play);
        const type = String(body && body.type || "");
        // Recorded: the record's number, or the key recorded already (409 idempotency-conflict).
        const recorded = response.ok && body && Number.isInteger(body.record) ||
          response.status === 409 && /idempotency-conflict$/.test(type);
        // Not the service (a venue's captive portal answering 200 with its login page: no JSON),
        // not now (429, a 5xx, a 401 device-unknown that may come from an instance set up wrong
        // behind a front end): tried again later. A device revoked since: the record will never
        // take it, so it is refused like any other, and the page says the device is no longer
        // paired (event.js), as after a challenge.
        const unknown = response.status === 401 && !/device-revoked$/.test(type);
        if (!recorded && (!body || !type || response.status === 429 || response.status >= 500 || unknown)) {
          if (unknown) EVENT.lost(body);  // asked again before the pairing is forgotten
          break;
        }
        // Its line, if still shown, says where it went: its record's number, or why the record
        // refused it. Refused as a split (two files of the event), or by an event moved elsewhere,
        // it is also said where a verdict refused so is (event.js): never recorded, tell the director.
        // Filed outside rounds (the round it showed was not open at the phone's time, or its head was
        // final): said with its number, as the console's list says it, since the slip shows that round.
        if (!recorded || body.record) {
          const outside = recorded && play.round && body.round === null, record = body.record;
          numbered(play.idempotency_key, !recorded ? J.problem(body) :
            outside ? t("recordedOutside", { record, round: play.round }) : t("recorded", { record }));
        }
        if (/event-(file-split|moved)$/.test(type)) J.say(() => J.problem(body));
        if (response.status === 401) EVENT.lost(body);
        if (memory.waiting.includes(play)) {
          memory.waiting.splice(memory.waiting.indexOf(play), 1);
          if (!recorded) memory.refused.push({ ...play, problem: body });
          continue;
        }
        await stored("refused", "readwrite", (store) => recorded ? undefined : store.put({ ...play, problem: body }));
        await stored("waiting", "readwrite", (store) => store.delete(play.idempotency_key));
      }
    }).catch(() => undefined).then(count).then((n) => {
      // The page's heartbeat, with what it still holds: a round closed while this phone was
      // silent waits for its word before its head is final (docs/tournament.md).
      if (EVENT.role() === "judge") EVENT.refresh(n);
      return n;
    }).finally(() => { flushing = null; });
    return flushing;
  }

  // A verdict judged here, still on the screen (or kept to be shown again), gets its record's
  // number once the record has it (the judge writes it on the slip), or the record's refusal.
  function numbered(key, text) {
    for (const line of [...document.querySelectorAll(".v-offline"), ...(J.state.last?.nodes || [])]) {
      if (line.dataset?.key === key) line.lastChild.textContent = text;
    }
  }

  function count() {
    const size = (name) => stored(name, "readonly", (store) => store.count()).catch(() => 0);
    return Promise.all([size("waiting"), size("refused")]).then(([waiting, refused]) => {
      Object.assign(counts, { waiting: waiting + memory.waiting.length, refused: refused + memory.refused.length });
      draw();
      return counts.waiting;
    });
  }

  // -- start -------------------------------------------------------------------------------------

  window.LexiconOffline = { standalone: Boolean(DATA.standalone), load, judge, flush, served,
    ready: (id) => Boolean(lexicons[id]) && allowed(), waiting: count };
  const again = () => { prepare(J.state.lexicon); draw(); };
  document.getElementById("lexicon").addEventListener("change", again);
  document.getElementById("langs").addEventListener("click", again);
  window.addEventListener("online", () => { again(); flush(); });
  // event.js: its heartbeat answered again after it was not (a service restarted while the phone's
  // own network stayed up, so no "online"): what waits goes now, not at the next retry.
  window.addEventListener("lexicon-judge:back", flush);
  window.addEventListener("lexicon-judge:paired", again);  // event.js: a device paired by its code
  window.addEventListener("lexicon-judge:event", () => { forget(); again(); });  // event.js: who this device is
  setInterval(() => { again(); flush(); }, RETRY_MS);
  draw();
  if (!DATA.standalone) {
    prepare(J.state.lexicon);
    flush();
  }
})();
