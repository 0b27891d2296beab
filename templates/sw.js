// Crownkeeper's service worker. It keeps the static files of this build, and a copy of each
// game page this phone opened, shown when the network does not answer: renewed from the
// server after every save made through it and every live update the page shows, so it is
// the last state this phone saw; beside a scorekeeper's copy, the rounds after the current
// one as the server renders them (/g/{code}/ahead), to play on offline. It never keeps API
// answers, live streams, or table, person or any other pages. A copy goes when the server
// answers 404 or 410 for its page (the game deleted, the link replaced), when this phone
// forgets the game, and after 30 days unused. Rounds kept on the phone while offline are
// sent from here too, where the browser has Background Sync. Its words are in the phone's
// language (its cookie, else Accept-Language), rendered into this file: another language is
// another worker, and the copies taken in the language before are renewed (relanguage).
"use strict";
var CONFIG = {{ config }};
var WORDS = {
  noCopy: {{ _("This phone keeps no copy of this page, and the server cannot be reached. It opens here once the connection is back.") | tojson }},
  offline: {{ _("Offline") | tojson }},
  copy: {{ _("Offline: this is the copy of this page from %(time)s. It updates when the connection is back.", time="%(time)s") | tojson }},
  forgotten: {{ _("Forgotten") | tojson }},
  forgot: {{ _("This phone has forgotten this game. The server cannot be reached, so the start page may still list it: forget it again from its page once the connection is back.") | tojson }}
};
var STATIC = "crownkeeper-static-" + CONFIG.version;
var ROOT = new URL("./", self.location).href;  // the app's root, under any ROOT_PATH
var GAME_PAGE = /^g\/[^\/?#]+$/;
var ROUNDS_AHEAD = /^g\/[^\/?#]+\/ahead$/;
var SAVE = /^g\/([^\/?#]+)\/rounds\/\d+$/;
// This phone's own steps that end a game page here: forgetting it, deleting the game,
// replacing its scorekeeper link.
var ENDS_PAGE = /^g\/([^\/?#]+)\/(forget|delete|scorekeeper-code)$/;
var PAGE_TIMEOUT_MS = 6000;
var KEPT_FOR_MS = 30 * 24 * 3600 * 1000;

importScripts(ROOT + "static/kept-rounds.js?v=" + CONFIG.version);
var kept = self.crownkeeperKept;

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
  }).then(sweep).then(function () { return self.clients.claim(); }).then(function () { relanguage(); }));
});

// A page of the worker's own (no copy to show, a game forgotten offline), in its language.
function notePage(title, text, status) {
  return new Response("<!doctype html><html lang=" + CONFIG.language + "><meta charset=utf-8>" +
    "<meta name=viewport content='width=device-width'><title>" + title + "</title><p>" + text + "</p>",
    { status: status || 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

function clock(date) {
  return date.toLocaleTimeString(CONFIG.language, { hour: "2-digit", minute: "2-digit" });
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

// Copies of anything but a game page (none are made, but never trust the past), and copies
// unused for 30 days: gone. A copy's last use is when it was taken or last shown offline.
function sweep() {
  return caches.open(kept.PAGES).then(function (cache) {
    return cache.keys().then(function (requests) {
      return Promise.all(requests.map(function (request) {
        var path = request.url.slice(ROOT.length);
        if (request.url.indexOf(ROOT) !== 0 || !(GAME_PAGE.test(path) || ROUNDS_AHEAD.test(path))) {
          return cache.delete(request);
        }
        return cache.match(request).then(function (copy) {
          var used = Number(copy && (copy.headers.get("X-Used-At") || copy.headers.get("X-Copied-At")));
          if (!(Date.now() - used < KEPT_FOR_MS)) return cache.delete(request);
        });
      }));
    });
  }).catch(function () { /* swept on the next navigation */ });
}

function keep(key, html, type, copiedAt, version) {
  var headers = { "Content-Type": type, "X-Copied-At": String(copiedAt), "X-Used-At": String(Date.now()),
    "X-Language": CONFIG.language };
  if (version) headers["X-Game-Version"] = version;
  return caches.open(kept.PAGES).then(function (cache) {
    return cache.put(key, new Response(html, { headers: headers }));
  });
}

// The server's answer for a game page kept as its copy, with the version it shows; and the
// rounds ahead the answer names (a scorekeeper's), kept beside it, or let go when none.
function keepPage(key, response) {
  var ahead = response.headers.get("X-Rounds-Ahead");
  var type = response.headers.get("Content-Type");
  return response.text().then(function (html) {
    return keep(key, html, type, Date.now(), response.headers.get("X-Game-Version"));
  }).then(function () {
    if (!ahead) return caches.open(kept.PAGES).then(function (cache) { return cache.delete(key + kept.AHEAD); });
    return fetch(new URL(ahead, self.location).href, { credentials: "same-origin" }).then(function (answer) {
      if (answer.ok) return answer.text().then(function (html) { return keep(key + kept.AHEAD, html, type, Date.now()); });
    });
  }).catch(function () { /* kept on the next renewal */ });
}

// The copy of the game page at key taken afresh from the server, unless it already shows
// `version`: one renewal at a time for a page, so a later one never loses to an earlier.
var renewing = {};
function renew(key, version) {
  var turn = (renewing[key] || Promise.resolve()).then(function () {
    return caches.open(kept.PAGES).then(function (cache) { return cache.match(key); }).then(function (copy) {
      if (version && copy && copy.headers.get("X-Game-Version") === String(version)) return;
      return fetch(key, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (response.status === 404 || response.status === 410) return kept.forgetPage(key);
        if (response.ok && type.indexOf("text/html") === 0) return keepPage(key, response);
      });
    });
  }).catch(function () { /* no connection: the copy stays as it was */ }).then(function () {
    if (renewing[key] === turn) delete renewing[key];
  });
  renewing[key] = turn;
  return turn;
}

// Copies taken while the phone read another language, renewed once this worker (the phone's
// language now) is in charge; best effort, unawaited so pages are not held up (a game page
// opened is renewed anyway).
function relanguage() {
  return caches.open(kept.PAGES).then(function (cache) {
    return cache.keys().then(function (requests) {
      return Promise.all(requests.map(function (request) {
        if (!GAME_PAGE.test(request.url.slice(ROOT.length))) return;
        return cache.match(request).then(function (copy) {
          if (copy && copy.headers.get("X-Language") !== CONFIG.language) return renew(request.url);
        });
      }));
    });
  }).catch(function () { /* renewed when its page is next opened */ });
}

// A game page: from the network when it answers (a copy kept with the time it was taken;
// none once the server says the page is gone); otherwise the copy, with a line at the top
// saying from when it is.
function gamePage(event, url) {
  var key = pageKey(url);
  return withTimeout(fetch(event.request), PAGE_TIMEOUT_MS).then(function (response) {
    if ([502, 503, 504].indexOf(response.status) >= 0) throw new Error("server unavailable");
    var type = response.headers.get("Content-Type") || "";
    if (response.status === 404 || response.status === 410) {
      event.waitUntil(kept.forgetPage(key));
    } else if (response.ok && type.indexOf("text/html") === 0) {
      event.waitUntil(keepPage(key, response.clone()));
    }
    return response;
  }).catch(function () {
    return caches.open(kept.PAGES).then(function (cache) { return cache.match(key); }).then(function (copy) {
      if (!copy) {
        return notePage(WORDS.offline, WORDS.noCopy, 503);
      }
      var copiedAt = Number(copy.headers.get("X-Copied-At"));
      var type = copy.headers.get("Content-Type");
      return copy.text().then(function (html) {
        event.waitUntil(keep(key, html, type, copiedAt));  // used now: kept 30 days more
        var line = '<p class="offline-copy" role="status">' + WORDS.copy.replace("%(time)s", clock(new Date(copiedAt))) + "</p>";
        return new Response(html.replace('<main id="main">', '<main id="main">' + line), {
          headers: { "Content-Type": type } });
      });
    });
  });
}

// A scorekeeper's rounds ahead: from the network when it answers (kept), else the copy.
function roundsAhead(event, url) {
  var key = pageKey(url);
  return withTimeout(fetch(event.request), PAGE_TIMEOUT_MS).then(function (response) {
    if ([502, 503, 504].indexOf(response.status) >= 0) throw new Error("server unavailable");
    if (response.ok) {
      event.waitUntil(response.clone().text().then(function (html) {
        return keep(key, html, response.headers.get("Content-Type"), Date.now());
      }));
    }
    return response;
  }).catch(function () {
    return caches.open(kept.PAGES).then(function (cache) { return cache.match(key); }).then(function (copy) {
      return copy || new Response("", { status: 503 });
    });
  });
}

// Forgetting a game on this phone lets its copy and its unsent rounds go, even offline;
// deleting the game or replacing its link lets the copy go once the server has done it.
function endPage(event, url, code, step) {
  var key = ROOT + "g/" + code;
  var forgotten = step === "forget" ? kept.forget(code, key) : Promise.resolve();
  return forgotten.then(function () { return fetch(event.request); }).then(function (response) {
    var done = response.type === "opaqueredirect" || response.redirected || (response.status >= 300 && response.status < 400);
    if (step !== "forget" && done) event.waitUntil(kept.forgetPage(key));
    return response;
  }, function (error) {
    if (step !== "forget") throw error;
    return notePage(WORDS.forgotten, WORDS.forgot);
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.url.indexOf(ROOT) !== 0) return;
  var url = new URL(request.url);
  var path = url.href.slice(ROOT.length).split(/[?#]/)[0];
  var ends = request.method === "POST" && ENDS_PAGE.exec(path);
  if (ends) {
    event.respondWith(endPage(event, url, ends[1], ends[2]));
    return;
  }
  var save = request.method === "PUT" && SAVE.exec(path);
  if (save) {
    // A round saved (or its choice made) through this worker: the page's copy follows.
    event.respondWith(fetch(request).then(function (response) {
      if (response.ok) event.waitUntil(renew(ROOT + "g/" + save[1], response.headers.get("X-Game-Version")));
      return response;
    }));
    return;
  }
  if (request.method !== "GET") return;
  if (ROUNDS_AHEAD.test(path)) {
    event.respondWith(roundsAhead(event, url));
  } else if (path.indexOf("static/") === 0) {
    event.respondWith(caches.open(STATIC).then(function (cache) {
      return cache.match(request, { ignoreSearch: true });
    }).then(function (cached) { return cached || fetch(request); }));
  } else if (request.mode === "navigate" && GAME_PAGE.test(path)) {
    // Swept first: a copy 30 days unused is not shown.
    event.respondWith(sweep().then(function () { return gamePage(event, url); }));
  } else if (request.mode === "navigate") {
    event.waitUntil(sweep());
  }
  // Everything else (the API, live streams, other pages) goes to the network untouched.
});

// A live update shown on a game page (kept-rounds.js): its copy follows, at that version.
self.addEventListener("message", function (event) {
  var url = new URL(event.source.url);
  var path = url.href.slice(ROOT.length).split(/[?#]/)[0];
  if (url.href.indexOf(ROOT) === 0 && GAME_PAGE.test(path) && event.data && "renew" in event.data) {
    event.waitUntil(renew(pageKey(url), event.data.renew));
  }
});

self.addEventListener("sync", function (event) {
  if (event.tag !== kept.SYNC_TAG) return;
  event.waitUntil(kept.sendAll(function (code) { return renew(ROOT + "g/" + code); }));
});
