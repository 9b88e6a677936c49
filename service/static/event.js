/* exported LexiconEvent */
/* Lexicon Judge: the judge's page in an event, loaded only when the service runs one
   (service/page.py), before judge.js, which calls these hooks. A phone is paired once, by the
   pairing URL the director's console shows (#pair=CODE or ?pair=CODE) or by typing its code; its
   device token stays in this phone's localStorage and goes with every challenge. The page shows
   the event, the round and the device in one line; on a table device, the lexicon's full identity
   one tap away (and on every verdict), the screen kept on during a round, and full screen. */
(() => {
  "use strict";
  // The round may open or close meanwhile: asked again this often while the page is in view, so
  // a device shows it within 5 s (one small GET: docs/judge-page.md says what it costs).
  const REFRESH_MS = 4000;
  const $ = (id) => document.getElementById(id);
  // `pin`: the event's lexicon, on a paired device (every verdict of the event is judged with it).
  const ev = { judge: null, state: null, device: null, round: null, pin: null };
  const root = document.documentElement, paired = (on) => root.classList.toggle("paired", on);
  const NS = "lexicon-judge" + (root.dataset.ns || "") + ".";  // judge/page.js's store()
  try {
    paired(Boolean(localStorage.getItem(NS + "device")));
    // A table device, as the service last said: its players' line has its place from the first paint.
    root.classList.toggle("table", JSON.parse(localStorage.getItem(NS + "event")).body.device.role === "table");
  } catch (e) {
    // Not paired; or paired and never answered (no answer kept): its role is not known, so the form
    // shows once the service says it (draw), or after 2 s without an answer. Shown at once, a
    // table device's lines for its players would come above it and push it down the screen.
    root.classList.toggle("unknown", root.classList.contains("paired"));
  }
  setTimeout(() => root.classList.remove("unknown"), 2e3);

  const paths = () => ev.judge.data.event;
  const t = (key, values) => window.LexiconCommon.fill(ev.judge.data.event.texts[ev.judge.state.ui][key], values);
  const token = () => ev.judge ? ev.judge.store("local", "device") || "" : "";
  const ask = (method, path, body, timeout) =>
    window.LexiconCommon.ask(method, path, { body, token: token(), timeout });

  /* The service's last word on this phone, for an app reopened offline (docs/judge-page.md,
     "The installed app"): one token's (a fingerprint), for 12 hours, its round for one. */
  const SAVED = "event", KEEP_MS = 12 * 3600e3, ROUND_MS = 3600e3, LAST = "last-verdict";
  function fingerprint(text) {  // FNV-1a
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
    return hash.toString(16);
  }
  const remember = (body, asked) => ev.judge.store("local", SAVED,
    body ? JSON.stringify({ token: fingerprint(asked), at: Date.now(), body }) : null);
  function remembered() {
    let saved;
    try { saved = JSON.parse(ev.judge.store("local", SAVED) || "null"); } catch (e) { return null; }
    const age = Date.now() - Number(saved && saved.at);
    if (!saved || saved.token !== fingerprint(token()) || !(age >= 0 && age < KEEP_MS) ||
      !saved.body || typeof saved.body !== "object") return null;
    return age < ROUND_MS ? saved.body : { ...saved.body, round: null };
  }

  // The devices as witnesses of one live file (docs/tournament.md): the event file that first
  // answered this device and its last recorded verdict's key, sent with each verdict and heartbeat.
  const seen = () => { try { return JSON.parse(ev.judge.store("local", "seen")) || {}; } catch (e) { return {}; } };
  const see = (more) => ev.judge.store("local", "seen", more && JSON.stringify({ ...seen(), ...more }));

  // The event's state for this device: GET v1/event (the name, the open round, the device), or
  // what it was last time when there is no answer and the page knows nothing yet.
  // `waiting`: from offline.js, the verdicts this phone holds (0 settles a round that waits for it).
  async function refresh(waiting) {
    if (!token()) return;  // an unpaired page has nothing to ask (a 401, an error in its console)
    const query = new URLSearchParams({ ...Number.isInteger(waiting) && { waiting }, ...seen() }).toString();
    // Unanswered in 10 s (a hall's Wi-Fi that swallows it, with no reset), given up as if refused:
    // waited on, the page never learnt the service was away, nor sent what waits once it answers.
    const asked = token(), result = await ask("GET", paths().state + (query && "?" + query), void 0, 1e4);
    // Answered (JSON: not a portal's page) after it was not: offline.js sends what waits now.
    if (result.body && ev.lost) window.dispatchEvent(new Event("lexicon-judge:back"));
    ev.lost = !result.body;
    if (result.status === 401 && token()) { unpaired(result.body); return; }
    if (result.status === 200 && result.body) {
      if (asked && asked === token()) remember(result.body, asked);  // not another token's answer
      apply(result.body);
    } else if (!ev.state && token() && (result.status === 0 || result.status >= 500)) {
      const saved = remembered();
      if (saved) apply(saved);
    }
  }

  function apply(body) {
    const judge = ev.judge, same = JSON.stringify(body) === JSON.stringify(ev.state);  // asked again, nothing new
    ev.state = body;
    ev.device = body.device || null;
    ev.round = body.round && typeof body.round === "object" ? body.round.number : body.round || null;
    const lexicon = body.lexicon && (body.lexicon.id || body.lexicon), role = ev.device && ev.device.role;
    // A paired device judges with the event's lexicon only (the service refuses another): the list
    // is locked, and its language buttons change only the interface (start(), below).
    ev.pin = role && typeof lexicon === "string" && judge.find(lexicon) || null;
    // Another file answering than the one first seen (not restored from it, or from an older copy
    // of it, without this device's last verdict: split): said, and kept out.
    const known = seen().event_file, file = body.file, other = file && file !== known;
    if (other && !body.split && (!known || body.restored_from === known)) see({ event_file: file, last_key: void 0 });
    else if (other || body.split) judge.say(() => judge.problem({ type: "event-file-split" }));
    if (ev.pin && ev.pin.id !== judge.state.lexicon && !judge.state.busy) judge.choose(ev.pin);  // draws
    else draw();
    if (!same) window.dispatchEvent(new Event("lexicon-judge:event"));  // offline.js: whether this device judges offline
  }

  // The event in one line of fixed height (the page drew it empty: filled in, nothing moves):
  // its name, the round, this device; a table device's lexicon in full in the lexicon's line's
  // details, one tap away.
  function draw() {
    if (!ev.judge) return;
    const box = $("event-box"), device = ev.device, role = device && device.role;
    document.querySelectorAll("[data-e]").forEach((el) => { el.textContent = t(el.dataset.e); });
    box.setAttribute("aria-label", t("event"));  // its region's name, in the language tapped
    $("pair-box").hidden = Boolean(token()) && !$("pair-error").textContent;
    paired($("pair-box").hidden);
    box.hidden = !ev.state && !token();  // a paired phone keeps the line's place while it asks
    $("event-name").textContent = ev.state ? ev.state.name || (ev.state.event && ev.state.event.name) || "" : "";
    $("event-round").textContent = ev.state ? (ev.round ? t("round", { round: ev.round }) : t("noRound")) : "";
    $("event-device").textContent = device ? t("device", { name: device.name, role: t("role." + role) }) +
    (role === "table" && device.table && !device.name.includes(device.table) ? " · " + t("table", { table: device.table }) : "") : "";
    $("fullscreen").hidden = role !== "table" || !document.fullscreenEnabled || Boolean(document.fullscreenElement);
    awake(role === "table" && Boolean(ev.round));
    if (!ev.state) return follow();
    const item = ev.judge.lexicon(), full = $("event-lexicon");
    full.hidden = role !== "table" || !item;  // both players may read what judges them: one tap away
    if (!full.hidden) {
      full.textContent = "";
      full.append(t("lexicon", { name: item.name, version: item.version }),
        ev.judge.element("span", "event-checksum", t("checksum", { checksum: paths().checksums[item.id] })));
    }
    // One line in one place, set only when it changes (it is announced): a lookup's closed round, or
    // on a table device, for its players, what the device is, or that no round is open.
    const closed = Boolean(ev.round) && (!device || role === "lookup"), idle = !ev.round && role === "table";
    const note = $("event-closed"), said = closed ? t("closed", { round: ev.round }) : idle ? t("noRoundTable") :
      role === "table" ? t("tableHelp", { table: device.table || device.name }) : "";
    root.classList.toggle("table", role === "table");
    root.classList.remove("unknown");
    note.hidden = !said;
    if (note.textContent !== said) note.textContent = said;
    note.classList.toggle("players", role === "table" && !idle);
    box.className = "event" + (role === "table" ? " table-device" : "") + (closed || idle ? " closed" : "");
    $("slip-box").hidden = role === "table" || role === "lookup";  // a table device's records carry its table
    $("round-field").hidden = true;  // the record takes the open round
    $("lexicon").disabled = Boolean(ev.pin);
    follow();
  }

  // The keyboard's order (Tab) and a screen reader's are the document's: an event's line the
  // stylesheet draws after the form (event.css: large text, 200 % zoom) is moved after it in the
  // document too, and back above it when drawn there, so that a table device's full-screen button
  // is reached after Comprobar, where it is drawn, not before word 1 (WCAG 2.4.3). Nothing moves on
  // the screen: the stylesheet's `order` placed it already.
  function follow() {
    const form = $("play"), focus = document.activeElement, lines = ["event-box", "event-closed", "event-awake"].map($);
    const after = lines.filter((line) => getComputedStyle(line).order > 0);
    if (lines.some((line) => after.includes(line) !== (form.compareDocumentPosition(line) === 4))) {
      $("pair-box").before(...lines.filter((line) => !after.includes(line)));
      form.after(...after);
      if (focus !== document.activeElement) focus?.focus();  // moved with its line: kept, in view
    }
  }

  // One 401 may be a wrong instance: asked twice more before unpairing.
  const unpaired = (body) => ev.doubt ||= (async () => {
    for (let i = 2; i-- && !/revoked$/.test(body?.type);) {
      await new Promise((go) => setTimeout(go, 2e3));
      const r = await ask("GET", paths().state);
      if (r.status !== 401) return r.status === 200 && r.body && apply(r.body);
      body = r.body;
    }
    ev.judge.store("local", "device", null);
    remember(null);
    see(null);
    ev.device = ev.pin = null;
    // Said once, in the pairing box shown again, by the field for a new code, until it is paired
    // (a word typed clears the dock's line); by its text's key, which draw() says in the language
    // tapped, as the box's label and help
    $("pair-error").dataset.e = "unpaired";
    draw();
    window.dispatchEvent(new Event("lexicon-judge:event"));  // offline.js: no judge now, its copy deleted at once
  })().finally(() => ev.doubt = null);

  /* A table device keeps its screen on while its round is open (the Screen Wake Lock API, where
     the browser has it: released by the browser when the page is hidden, asked again when it is
     shown), and offers to go full screen (a button: browsers ask for a gesture). Where it has no
     such API, or refuses the lock (WebKitGTK does), the round's players read that the screen may
     turn off, and what to do, in the line kept for it, until a lock is held or the round closes. */
  let lock = null, wanted = false, refused = false;
  function awake(on) {
    wanted = on;
    if (on && !lock && navigator.wakeLock && document.visibilityState === "visible") {
      lock = navigator.wakeLock.request("screen").then((sentinel) => {
        refused = false;
        sentinel.addEventListener("release", () => { lock = null; });
        if (!wanted) sentinel.release();
        asleep();
        return sentinel;
      }, () => { lock = null; refused = true; asleep(); });
    } else if (!on && lock) {
      lock.then((sentinel) => sentinel && sentinel.release());
      lock = null;
    }
    asleep();
  }
  function asleep() {
    const line = $("event-awake"), said = wanted && (refused || !navigator.wakeLock) ? t("awake") : "";
    line.dataset.room = t("awake");
    if (line.textContent !== said) line.firstChild.textContent = said;
  }

  /* "Wait 9 s": counted down every second, until the next check may go, and gone at 0 or when the
     judge types. Said once: the number is hidden from screen readers once it has been said; said
     again, number and all, in a language tapped (the dock's line, judge/page.js's say). */
  let ticking = null;
  function countdown(end) {
    const error = ev.judge.formError, left = () => Math.max(0, Math.ceil((end - Date.now()) / 1000));
    const count = ev.judge.element("span", "seconds", left());
    ev.judge.say(() => { count.removeAttribute("aria-hidden"); const [before, after] = t("wait").split("{seconds}"); return [before, count, after]; });
    clearInterval(ticking);
    ticking = setInterval(() => {
      count.setAttribute("aria-hidden", "true");
      if (!error.contains(count)) clearInterval(ticking);
      else if (left()) count.textContent = left();
      else { clearInterval(ticking); error.textContent = ""; }
    }, 250);
  }

  // `typed`: the code typed in the pairing box (its field's Enter, or Vincular), not a pairing URL's.
  async function pair(code, typed) {
    code = String(code || "").trim();
    if (!code) return;
    const result = await ask("POST", paths().pair, { code }), line = $("pair-error");
    if ((result.status === 200 || result.status === 201) && result.body && result.body.token) {
      ev.judge.store("local", "device", result.body.token);
      remember(null);  // another device's, if this phone was one
      see(null);
      line.textContent = "";
      delete line.dataset.e;
      $("pair-code").value = "";
    } else {
      line.textContent = t(line.dataset.e = "pairWrong");  // said again in a language tapped (draw)
    }
    await refresh();
    // Typed here and paired: the box is gone, and with it the focus (to the body, or left on a
    // hidden field). On to the play's words, a group named in the page's language: the next Tab is
    // word 1 (focused itself, it would open a phone's keyboard unasked).
    if (typed && $("pair-box").hidden) { const words = $("word-list").parentNode; words.tabIndex = -1; words.focus(); }
    window.dispatchEvent(new Event("lexicon-judge:paired"));  // offline.js may fetch the lexicon now
  }

  // The code of a pairing URL (#pair=CODE, or ?pair=CODE), taken off the address at once.
  function codeInAddress() {
    const params = new URLSearchParams(location.search), hash = new URLSearchParams(location.hash.slice(1));
    const code = params.get("pair") || hash.get("pair");
    if (code !== null) {
      params.delete("pair");
      const query = params.toString();
      history.replaceState(null, "", location.pathname + (query ? "?" + query : ""));
    }
    return code;
  }

  window.LexiconEvent = {
    token,
    draw,

    // What an event adds to a challenge's body: a judge device's slip table (the record takes the round),
    // and a key, so that a verdict is recorded once (kept for a play asked again unanswered: its row shown).
    fields(slip, words) {
      const role = ev.device && ev.device.role, play = JSON.stringify([words, slip.table]);
      if (ev.asked !== play) ev.key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
      ev.asked = play;
      const key = { idempotency_key: ev.key, ...seen() };
      // A judge's, or a paired phone's whose role is not known yet; never a phone without a device's
      // (the record refuses it: slip-not-allowed), whose page shows no slip.
      return slip.table && (role === "judge" || (!ev.device && token())) ? { table: slip.table, ...key } : key;
    },

    // For offline.js: the record answered 401 to a waiting verdict: the device was revoked.
    lost: unpaired,

    // For offline.js: true (and the page counts down how long) while the role's gap (`wait`) runs.
    early() {
      const gap = 1000 * (Number(ev.state && ev.state.wait) || 0), now = Date.now();
      let last = Number(ev.judge.store("local", LAST) || 0);
      if (last > now) ev.judge.store("local", LAST, String(last = now));  // clock set back
      if (last + gap <= now) return false;
      countdown(last + gap);
      return true;
    },

    // For judge.js: what a table device says when the service cannot be reached. It never judges
    // offline (the service's record and gap keep a table from being a dictionary): a judge decides.
    unreachable: () => ev.device && ev.device.role === "table" ? t("callJudge") : "",

    // For offline.js: this device's role, and the round open when the service last said.
    role: () => ev.device && ev.device.role,
    refresh,  // offline.js, verdicts recorded: the round may have changed
    round: () => ev.round,

    // The table and round a verdict shows: the device's table, and the round of the record's
    // answer (`body`: none if the round closed since the page last asked), else the open round.
    slip(slip, body) {
      const table = ev.device && ev.device.role === "table" ? ev.device.table || "" : slip.table;
      const round = body && "round" in body ? body.round : ev.round;
      return { table, round: round ? String(round) : "" };
    },

    // The answers that are no verdict: 401 unpaired, 403 closed, 429 wait. True: handled here.
    answer(status, body, response) {
      const say = ev.judge.say;
      if (status < 500) ev.asked = null;
      setTimeout(refresh, 0);  // the round, or the device, may have changed
      if (status === 401 && token()) { unpaired(body); return true; }
      const type = String(body && body.type || "");
      if (status === 403 && /lookups-closed$/.test(type)) { say(() => t("closedNow")); return true; }
      if (status === 403 && /no-round$/.test(type)) { say(() => t("noRoundTable")); return true; }
      const pinned = /event-lexicon$/.test(type) && ev.judge.find(body.lexicon);
      if (pinned) { say(() => t("eventLexicon", { name: pinned.name })); return true; }
      if (status === 429) {
        const header = response && response.headers.get("Retry-After");
        countdown(Date.now() + 1000 * Math.max(1, Math.ceil(Number(header || (body && body.retry_after) || 1))));
        return true;
      }
      return false;
    },

    // A verdict in an event shows its record's number, for the slip (papeleta); on a table
    // device, the lexicon that gave it in full, checksum and all.
    verdict(body) {
      ev.asked = null;
      ev.judge.store("local", LAST, String(Date.now()));
      const verdict = ev.judge.verdict, element = ev.judge.element;
      if (body && Number.isInteger(body.record)) {
        see({ last_key: ev.key });
        verdict.insertBefore(element("p", "v-record", t("record", { record: body.record })), verdict.querySelector(".v-lexicon"));
      }
      if (ev.device && ev.device.role === "table" && body && body.lexicon) {
        verdict.appendChild(element("p", "v-checksum", t("checksum", { checksum: body.lexicon.checksum })));
      }
    },

    start(judge) {
      ev.judge = judge;
      const code = codeInAddress();
      window.addEventListener("hashchange", () => {  // a pairing URL opened on the page already open
        const again = codeInAddress();
        if (again) pair(again);
      });
      $("pair-save").addEventListener("click", () => pair($("pair-code").value, 1));
      // After start.js's own (the button's): a language tapped on a paired device keeps the lexicon.
      $("langs").addEventListener("click", () => { if (ev.pin && ev.pin.id !== judge.state.lexicon) judge.choose(ev.pin); });
      $("fullscreen").addEventListener("click", () => {
        const done = () => draw();
        if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen({ navigationUI: "hide" }).then(done, done);
      });
      document.addEventListener("fullscreenchange", draw);
      window.addEventListener("resize", follow);  // zoomed in or out: drawn elsewhere
      $("pair-code").addEventListener("keydown", (event) => {
        if (event.key === "Enter") { event.preventDefault(); pair($("pair-code").value, 1); }
      });
      const again = () => { if (document.visibilityState === "visible") { awake(wanted); refresh(); } };
      document.addEventListener("visibilitychange", again);
      window.addEventListener("focus", again);
      setInterval(again, REFRESH_MS);
      draw();
      if (code) pair(code); else refresh();
    },
  };
})();
