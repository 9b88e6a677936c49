/* Lexicon Judge: the director's console, what its scripts share (loaded first, after common.js):
   the page's data, the console's state, asking the service and the small drawing helpers. The
   console is a client of the tournament API (/v1/director/session, /v1/devices, /v1/rounds,
   /v1/records, /v1/event) with the session cookie; no secret is ever kept by the page.
   Its scripts, in the order the page loads them: director-state.js, director-rounds.js,
   director-devices.js (and pairing), director-records.js (the list, its integrity, the counts),
   director-slip.js, director.js (logging in and out, reading the state, the start). Each adds
   what the others call to window.LexiconDirector, which tests read too (state, refresh). */
window.LexiconDirector = (() => {
  "use strict";
  const data = JSON.parse(document.getElementById("director-data").textContent);
  const API = data.api;
  const $ = (id) => document.getElementById(id);
  const state = { ui: null, event: null, devices: [], rounds: [], records: [], more: false, shown: null, chain: null, lexicon: undefined, ends: null };
  const D = { data, API, $, state };

  D.t = LexiconCommon.texts(data.texts, () => state.ui);  // common.js
  D.element = LexiconCommon.element;

  // {status, body, retry}; a 401 on anything but the login itself means the session is over. Past
  // the session's known end (state.ends, director.js) nothing is sent: the answer would be that 401,
  // which a browser logs as an error; the login comes back at once instead.
  D.ask = async (method, path, body) => {
    if (state.ends && Date.now() >= state.ends && path !== API.session && path !== API.link) {
      D.signedOut(D.t("sessionOver"));
      return { status: 401, body: null, text: "", headers: new Headers(), timedOut: false, retry: null };
    }
    const result = await LexiconCommon.ask(method, path, { body });
    result.retry = result.headers.get("Retry-After");
    if (result.status === 401 && path !== API.session && !$("console").hidden) D.signedOut(D.t("sessionOver"));
    return result;
  };

  // The words for a failed request, for the panel it is about.
  D.failure = (result) => {
    if (result.status === 0) return D.t("offline");
    if (result.body && result.body.title && result.status < 500) {
      return D.t("refused", { detail: result.body.detail || result.body.title });
    }
    return D.t("failed", { status: result.status });
  };

  D.list = (body, key) => Array.isArray(body) ? body : body && Array.isArray(body[key]) ? body[key] : [];

  D.openRound = () => state.rounds.find((r) => !r.closed);
  // Every time the console shows (the list, the slip, the rounds, the devices): the record's UTC
  // time in this computer's zone, one format everywhere, to the second, with the zone's name.
  D.clock = (stamp) => {
    const moment = new Date(stamp || NaN);
    return isNaN(moment) ? "" : moment.toLocaleString(state.ui, { year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
  };
  D.deviceName = (id) => { const d = state.devices.find((x) => x.id === id); return d ? d.name : ""; };

  // A table cell with its column's name, which a card shows beside it at phone width.
  D.cell = (row, label, content) => {
    const td = row.insertCell();
    td.dataset.label = label;
    if (content instanceof Node) td.appendChild(content); else td.textContent = content === undefined || content === null ? "" : content;
    return td;
  };

  return D;
})();
