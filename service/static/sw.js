/* global SHELL */
/* Lexicon Judge: the installed app's service worker, at /sw.js so that its scope is the page's.
   service/installable.py serves this file behind one line it writes at start, `const SHELL =
   {cache, urls, keep}`: the cache's name, which carries a digest of everything listed; `urls`,
   the page's shell, kept at install (the page, its files at their ?v=digest, the web manifest);
   `keep`, what else may be kept when the page asks for it (the other files, the icons, the
   browser lexicons). A new page, asset or lexicon is a new digest, so a new sw.js, which the
   browser installs in place of this one.

   What this phone uses, and nothing else: the shell at install (its files at their ?v=digest
   come from the browser's HTTP cache, where the page put them: not downloaded again), then each
   listed file the page fetches, as it fetches it (a lexicon once, by the page). The page is
   kept as the service last served it to this phone (in its language).
   Verdicts (POST) and anything sent with a token are never cached, never answered from here. */
"use strict";
const PREFIX = SHELL.prefix;  // every cache of this app (of this event, under /e/ID/): the others are left alone
const WAIT_MS = 3000;             // the page from the network, else the cached one after this

const scope = new URL(self.registration.scope);
const listed = new Set(SHELL.urls.concat(SHELL.keep).map((url) => new URL(url, scope).pathname));

self.addEventListener("install", (event) => {
  // The page revalidated ("no-cache": a 304 when it has not changed); its files, immutable, as cached.
  event.waitUntil(caches.open(SHELL.cache)
    .then((cache) => cache.addAll(SHELL.urls.map((url) => new Request(new URL(url, scope),
      { cache: url === "./" ? "no-cache" : "default" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith(PREFIX) && name !== SHELL.cache)
      .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

// A response worth keeping: the service's own, whole, 200.
const keepable = (response) => response && response.status === 200 && response.type === "basic";

// The network's page unless it fails, answers 5xx or takes longer than WAIT_MS; kept as served.
function network(request) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(reject, WAIT_MS);
    fetch(request).then((response) => {
      clearTimeout(timer);
      if (response.status >= 500) { reject(); return; }
      if (keepable(response)) {
        const copy = response.clone();
        caches.open(SHELL.cache).then((cache) => cache.put(scope.href, copy)).catch(() => {});
      }
      resolve(response);
    }, reject);
  });
}

self.addEventListener("fetch", (event) => {
  const request = event.request, url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin || !listed.has(url.pathname) ||
    request.headers.has("Authorization")) return;
  if (request.mode === "navigate") {  // the page, with its ?lexicon= or ?token=: the same page
    event.respondWith(network(request).catch(() => caches.open(SHELL.cache)
      .then((cache) => cache.match(scope.href))
      .then((page) => page || fetch(request))));
  } else if (!url.searchParams.has("token")) {
    const lexicon = url.pathname.endsWith("/browser");
    event.respondWith(caches.open(SHELL.cache).then((cache) => cache.match(request, { ignoreSearch: lexicon })
      .then((hit) => hit || fetch(request).then((response) => {
        if (keepable(response)) {
          cache.put(lexicon ? url.origin + url.pathname : request, response.clone()).catch(() => {});
        }
        return response;
      }))));
  }
});
