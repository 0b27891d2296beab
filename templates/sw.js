// Crownkeeper's service worker. It keeps the static files of this build, and a copy of each
// game page this phone opened, shown when the network does not answer. It never keeps API
// answers, live streams or any page this phone did not open itself. Rounds kept on the
// phone while offline are sent from here too, where the browser has Background Sync.
"use strict";
var CONFIG = {{ config }};
var STATIC = "crownkeeper-static-" + CONFIG.version;
var PAGES = "crownkeeper-pages";
var ROOT = new URL("./", self.location).href;  // the app's root, under any ROOT_PATH
var GAME_PAGE = /^g\/[^\/?#]+$/;
var PAGE_TIMEOUT_MS = 6000;

importScripts(ROOT + "static/kept-rounds.js?v=" + CONFIG.version);

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(STATIC).then(function (cache) {
    // Past the browser's own cache: an upgrade must never keep last build's files.
    return cache.addAll(CONFIG.static.map(function (path) {
      return new Request(ROOT + "static/" + path, { cache: "reload" });
    }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf("crownkeeper-static-") === 0 && name !== STATIC;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

function clock(date) {
  return String(date.getHours()).padStart(2, "0") + ":" + String(date.getMinutes()).padStart(2, "0");
}

function withTimeout(promise, ms) {
  return new Promise(function (resolve, reject) {
    var timer = setTimeout(function () { reject(new Error("timeout")); }, ms);
    promise.then(function (value) { clearTimeout(timer); resolve(value); }, function (error) { clearTimeout(timer); reject(error); });
  });
}

function pageKey(url) {
  return url.origin + url.pathname;
}

// A game page: from the network when it answers (a copy kept with the time it was taken);
// otherwise the copy, with a line at the top saying from when it is.
function gamePage(request, url) {
  return withTimeout(fetch(request), PAGE_TIMEOUT_MS).then(function (response) {
    if ([502, 503, 504].indexOf(response.status) >= 0) throw new Error("server unavailable");
    var type = response.headers.get("Content-Type") || "";
    if (response.ok && type.indexOf("text/html") === 0) {
      var copy = response.clone();
      copy.text().then(function (html) {
        return caches.open(PAGES).then(function (cache) {
          return cache.put(pageKey(url), new Response(html, { headers: {
            "Content-Type": type, "X-Copied-At": String(Date.now()) } }));
        });
      });
    }
    return response;
  }).catch(function () {
    return caches.open(PAGES).then(function (cache) { return cache.match(pageKey(url)); }).then(function (kept) {
      if (!kept) {
        return new Response("<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>" +
          "<title>Offline</title><p>This page was never opened on this phone, and the server cannot be reached. " +
          "It opens here once the connection is back.</p>", { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
      }
      var copiedAt = new Date(Number(kept.headers.get("X-Copied-At")));
      return kept.text().then(function (html) {
        var line = '<p class="offline-copy" role="status">Offline: this is the copy of this page from ' +
          clock(copiedAt) + ". It updates when the connection is back.</p>";
        return new Response(html.replace('<main id="main">', '<main id="main">' + line), {
          headers: { "Content-Type": kept.headers.get("Content-Type") } });
      });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || request.url.indexOf(ROOT) !== 0) return;
  var url = new URL(request.url);
  var path = url.href.slice(ROOT.length).split(/[?#]/)[0];
  if (path.indexOf("static/") === 0) {
    event.respondWith(caches.open(STATIC).then(function (cache) {
      return cache.match(request, { ignoreSearch: true });
    }).then(function (cached) { return cached || fetch(request); }));
  } else if (request.mode === "navigate" && GAME_PAGE.test(path)) {
    event.respondWith(gamePage(request, url));
  }
  // Everything else (the API, live streams, other pages) goes to the network untouched.
});

self.addEventListener("sync", function (event) {
  if (event.tag === self.crownkeeperKept.SYNC_TAG) event.waitUntil(self.crownkeeperKept.sendAll());
});
