// Rounds kept on this phone when a save cannot reach the server, and sent by themselves, in
// order and once, when the connection is back. The sending half also runs in the service
// worker (Background Sync); the page half shows kept rounds on the sheet and opens the next
// round's entry so the table plays on. Loaded after the page is shown. Forgetting a game on
// this phone (its copy for offline and its unsent rounds) is here too, for both halves.
(function (scope) {
  "use strict";
  if (scope.crownkeeperKept) return;
  var SYNC_TAG = "crownkeeper-kept-rounds";
  var STORE = "rounds";
  var PAGES = "crownkeeper-pages";  // the service worker's copies of game pages
  var AHEAD = "/ahead";  // after a game page's address: its rounds ahead (app/web/pages.py)

  function database() {
    return new Promise(function (resolve, reject) {
      var opening = scope.indexedDB.open("crownkeeper", 1);
      opening.onupgradeneeded = function () { opening.result.createObjectStore(STORE, { keyPath: "id" }); };
      opening.onsuccess = function () { resolve(opening.result); };
      opening.onerror = function () { reject(opening.error); };
    });
  }
  function withStore(mode, act) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var done = db.transaction(STORE, mode);
        var result = act(done.objectStore(STORE));
        done.oncomplete = function () { db.close(); resolve(result && "result" in result ? result.result : undefined); };
        done.onerror = function () { db.close(); reject(done.error); };
      });
    });
  }
  // Kept rounds in round order: of one game, or of all of them.
  function kept(code) {
    return withStore("readonly", function (store) { return store.getAll(); }).then(function (rounds) {
      return (rounds || []).filter(function (r) { return r.fields && (!code || r.code === code); })
        .sort(function (a, b) { return a.code < b.code ? -1 : a.code > b.code ? 1 : a.round - b.round; });
    });
  }
  function put(round) { return withStore("readwrite", function (store) { store.put(round); }); }
  function remove(id) { return withStore("readwrite", function (store) { store.delete(id); }); }

  // One sender at a time on this phone, page or worker: a round is never sent twice at once.
  function alone(act) {
    var locks = scope.navigator && scope.navigator.locks;
    return locks ? locks.request("crownkeeper-kept-rounds", act) : act();
  }

  // The version the round after `number - 1` may be based on, from the server's answer to
  // that round (its headers say the version and the round its entry takes blank): only when
  // that is this very round. Otherwise another phone moved the game on, and the round must
  // get the choice (null).
  function baseFor(response, number) {
    return response.headers.get("X-Fresh-Round") === String(number) ? response.headers.get("X-Game-Version") : null;
  }
  function answered(code) { return code + ":answered"; }

  // Send a game's kept rounds in order. Each goes with the version it was based on: the
  // game's when it was kept, or the server's answer to the kept round before it (see
  // baseFor). Stops at the first that cannot be sent ("offline") or is refused ("problem":
  // its answer is the page's region with the choice, or the reason, to show).
  function sendGame(code, told, showAgain) {
    told = told || function () {};
    return alone(function () {
      function next() {
        // Read afresh each time: a round kept while the one before was on its way goes too.
        return Promise.all([kept(code), withStore("readonly", function (store) { return store.get(answered(code)); })])
          .then(function (found) { return send(found[0][0], found[1]); });
      }
      function send(round, last) {
        if (!round) return "sent";
        // A refused round waits for the page; a page that has not shown it yet sends it
        // again for the answer to show (a refusal writes nothing).
        if (round.problem && !(showAgain && showAgain(round))) return "problem";
        var base = round.base;
        if (base === null && last && last.round === round.round - 1) base = last.base;
        // No base known: version 0 is no game's, so the server offers the choice rather than
        // saving over anything.
        var body = new URLSearchParams();
        round.fields.forEach(function (pair) { body.append(pair[0], pair[0] === "version" ? (base || "0") : pair[1]); });
        return fetch(round.url, { method: "PUT", body: body, credentials: "same-origin", headers: { "HX-Request": "true" } })
          .then(function (response) {
            if (response.status >= 500 || response.status === 429 || response.status === 408) return "offline";
            return response.text().then(function (html) {
              if (!response.ok) {
                round.problem = response.status;
                return put(round).then(function () { told("problem", round, html); return "problem"; });
              }
              var note = { id: answered(code), code: code, round: round.round, base: baseFor(response, round.round + 1) };
              return remove(round.id).then(function () { return put(note); })
                .then(function () { told("sent", round, html); return next(); });
            });
          }, function () { return "offline"; });
      }
      return next();
    });
  }

  // Every game's kept rounds; fails while any could not be sent, so Background Sync tries
  // again later. Each game sent to is passed to `after` (the worker renews its page's copy).
  function sendAll(after) {
    return kept().then(function (rounds) {
      var codes = rounds.map(function (r) { return r.code; }).filter(function (c, i, all) { return all.indexOf(c) === i; });
      return codes.reduce(function (chain, code) {
        return chain.then(function (outcomes) {
          return sendGame(code).then(function (outcome) {
            return Promise.resolve(after && after(code)).then(function () { return outcomes.concat([outcome]); });
          });
        });
      }, Promise.resolve([]));
    }).then(function (outcomes) {
      if (outcomes.indexOf("offline") >= 0) throw new Error("Not every kept round could be sent: tried again later.");
    });
  }

  // The copy of the game page at pageUrl, kept for offline, let go, and its rounds ahead.
  function forgetPage(pageUrl) {
    if (!scope.caches) return Promise.resolve();  // no worker without HTTPS, so no copies
    return scope.caches.open(PAGES).then(function (cache) {
      return Promise.all([cache.delete(pageUrl), cache.delete(pageUrl + AHEAD)]);
    });
  }
  // A game forgotten on this phone: its page's copy and its rounds not sent yet.
  function forget(code, pageUrl) {
    return Promise.all([forgetPage(pageUrl), kept(code).then(function (rounds) {
      return withStore("readwrite", function (store) {
        rounds.forEach(function (round) { store.delete(round.id); });
        store.delete(answered(code));
      });
    })]);
  }

  scope.crownkeeperKept = { SYNC_TAG: SYNC_TAG, PAGES: PAGES, AHEAD: AHEAD, kept: kept, sendGame: sendGame, sendAll: sendAll,
    forget: forget, forgetPage: forgetPage };
  if (typeof document === "undefined") return;  // the service worker needs no more

  // --- the page ---------------------------------------------------------------------------
  var ck = scope.crownkeeper;

  // Every live update the page shows: it is no longer the copy shown offline (that line
  // goes), and the service worker renews its copy of the page to the version now shown
  // (templates/sw.js). A page the worker controls loads this script at once for this.
  document.addEventListener("crownkeeper:live", function (event) {
    document.querySelectorAll(".offline-copy").forEach(function (line) { line.remove(); });
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (worker) worker.postMessage({ renew: event.detail.id });
  });
  var RETRY_MS = 15000;
  var pending = [];  // this game's kept rounds, as last read
  var sending = false;
  var shown = {};  // kept rounds refused whose answer this page has shown

  function game() { return document.getElementById("game"); }
  // A mark app.js reads on load: this game has rounds kept, so fetch this script at once.
  function remember(any) {
    try {
      if (any) window.localStorage.setItem("crownkeeper-kept:" + gameCode(), "1");
      else window.localStorage.removeItem("crownkeeper-kept:" + gameCode());
    } catch (error) { /* private mode: kept rounds are sent while the page stays open */ }
  }
  function gameCode() { var g = game(); return g && g.dataset.code; }
  function say(text) {
    var note = document.getElementById("saved-note");
    if (note) { note.style.visibility = ""; note.textContent = text; }
  }

  function seatsOf(form) {
    var out = form.querySelector("input[name=went_out]:checked");
    return Array.from(form.querySelectorAll("fieldset.seat"), function (seat) {
      var typed = seat.querySelector('input[name^="points_"]').value.trim();
      var wentOut = !!out && out.value === seat.dataset.seat;
      var points = wentOut || seat.querySelector("input[name^=zero_]").checked ? 0 :
        typed !== "" ? Number(typed) : ck.pointsOf(seat, ck.cardsOf(seat));
      return { seat: Number(seat.dataset.seat), points: points, out: wentOut };
    });
  }

  // Keep the round this form holds, show it, and open the next round's entry.
  function keep(form) {
    var code = gameCode();
    var number = Number(form.dataset.round);
    var fields = Array.from(new FormData(form)).filter(function (pair) { return typeof pair[1] === "string"; });
    fields.push(["save", "1"]);
    var base = form.dataset.keptBase === "after" ? null : form.querySelector("input[name=version]").value;
    var round = { id: code + ":" + String(number).padStart(2, "0"), code: code, round: number,
      url: new URL(form.getAttribute("action"), window.location.href).href, fields: fields,
      base: base, seats: seatsOf(form), keptAt: Date.now(), problem: null };
    return put(round).then(function () {
      remember(true);
      try { window.localStorage.removeItem("crownkeeper-draft:" + form.dataset.draft); } catch (error) { /* private mode */ }
      pending.push(round);
      showKept();
      openNext(form, number).then(ck.bringUp);
      // "Dee left. Undo" holds until the round after the leaving is saved: kept counts.
      document.querySelectorAll(".left-note").forEach(function (line) { line.remove(); });
      say(ck.word("kept", { round: number }));
      askForSync();
    }, function () {
      ck.say(form.querySelector(".save-alert"), ck.word("unkept", { round: number }));
    });
  }

  function askForSync() {
    if (!navigator.serviceWorker) return;
    navigator.serviceWorker.ready.then(function (registration) {
      if (registration.sync) return registration.sync.register(SYNC_TAG);
    }).catch(function () {});
  }

  // The kept rounds on the sheet and in the totals, each marked as not sent yet.
  function showKept() {
    var sheet = document.querySelector("#sheet table.sheet");
    if (!sheet) return;
    var foot = sheet.querySelectorAll("tfoot td");
    var totals = document.querySelectorAll("#totals .total");
    pending.forEach(function (round) {
      var row = sheet.querySelector('tbody tr[data-round="' + round.round + '"]');
      if (!row || row.dataset.kept) return;
      row.dataset.kept = "1";
      row.classList.add("kept");
      var label = document.createElement("small");
      label.className = "not-sent";
      label.textContent = " " + ck.word("unsent");
      row.querySelector("th").append(label);
      var cells = row.querySelectorAll("td");
      round.seats.forEach(function (seat) {
        if (cells[seat.seat]) cells[seat.seat].textContent = seat.points + (seat.out ? " ✓" : "");
        [foot[seat.seat], totals[seat.seat]].forEach(function (cell) {
          if (cell) cell.textContent = Number(cell.textContent) + seat.points;
        });
      });
    });
    var totalRow = sheet.querySelector("tfoot th");
    if (pending.length && totalRow && !totalRow.querySelector(".not-sent")) {
      var mark = document.createElement("small");
      mark.className = "not-sent";
      mark.textContent = " " + ck.word("unsentT");
      totalRow.append(mark);
      var list = document.querySelector("#totals .totals");
      if (list) list.classList.add("kept");
    }
  }

  // The rounds after the current one as the server renders them, each a <template> of the
  // status and blank entry the page shows once it is current (app/web/pages.py): fetched
  // once, from the service worker's copy when offline (a page without a worker fetches
  // them when this script comes at load, and keeps them while it stays open).
  var ahead = null;
  function roundsAhead() {
    ahead = ahead || fetch(window.location.pathname + AHEAD, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error("no rounds ahead");
      return response.text();
    }).then(function (html) {
      var holder = document.createElement("template");
      holder.innerHTML = html;
      return holder.content;
    });
    ahead.catch(function () { ahead = null; });  // asked again next time
    return ahead;
  }

  // The round after a kept one, as the server rendered it: its status in place of the
  // page's, its entry (empty, based on the kept round) in place of the kept round's.
  function openNext(form, number) {
    var entry = form.closest("#game section.enter");
    if (!entry) { form.hidden = true; return Promise.resolve(); }
    return roundsAhead().then(function (rounds) {
      var next = rounds.querySelector('template[data-round="' + (number + 1) + '"]');
      if (!next) { form.hidden = true; return; }
      var shown = next.content.cloneNode(true);
      var status = document.getElementById("status");
      var title = shown.querySelector("title");
      if (title) document.title = title.textContent;
      var nextEntry = shown.querySelector("section.enter");
      nextEntry.querySelector("form.entry").dataset.keptBase = "after";
      entry.replaceWith(nextEntry);
      if (status) status.replaceChildren(shown.querySelector("section.status"));
      if (window.htmx) window.htmx.process(nextEntry);
      nextEntry.dispatchEvent(new CustomEvent("htmx:after:swap", { bubbles: true }));
      // A watcher-style "Offline since …, showing round N" follows the round now shown.
      if (!navigator.onLine) window.dispatchEvent(new Event("offline"));
    }, function () { form.hidden = true; });
  }

  // After a send: the server's page region in place of this one (taps in an entry opened
  // here carried over), then the rounds still kept drawn on it. False when the answer holds
  // no game to show.
  function showAnswer(html) {
    var form = document.querySelector("form.entry[data-kept-base]");
    var taps = null;
    try { taps = form && window.localStorage.getItem("crownkeeper-draft:" + form.dataset.draft); } catch (error) { taps = null; }
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var fresh = holder.content.querySelector("#game");
    var old = game();
    if (!fresh || !old) return false;
    var freshForm = fresh.querySelector("form.entry");
    if (taps && freshForm && form && freshForm.dataset.round === form.dataset.round) {
      try { window.localStorage.setItem("crownkeeper-draft:" + freshForm.dataset.draft, taps); } catch (error) { /* private mode */ }
    }
    delete fresh.dataset.saved;  // this page says what was sent, not "Round N saved"
    old.replaceWith(fresh);
    if (window.htmx) window.htmx.process(fresh);
    fresh.dispatchEvent(new CustomEvent("htmx:after:swap", { bubbles: true }));
    // The page is the server's now: a copy shown offline no longer.
    document.querySelectorAll(".offline-copy").forEach(function (line) { line.remove(); });
    return true;
  }

  function refresh() {
    var code = gameCode();
    if (!code) return Promise.resolve();
    return kept(code).then(function (rounds) {
      pending = rounds;
      remember(rounds.length > 0);
      if (!rounds.length) return;
      showKept();
      var last = rounds[rounds.length - 1];
      var form = document.querySelector("form.entry");
      if (form && !rounds.some(function (r) { return r.problem; }) && Number(form.dataset.round) <= last.round) {
        return openNext(form, last.round);
      }
    });
  }

  function send() {
    var code = gameCode();
    if (sending || !code || !pending.length) return;
    sending = true;
    var answered = null;
    var had = pending.length;
    sendGame(code, function (what, round, html) {
      pending = pending.filter(function (r) { return r.id !== round.id; });
      if (what === "problem") { pending.push(round); shown[round.id] = true; }
      answered = html;
    }, function (round) { return !shown[round.id]; }).then(function (outcome) {
      if (!answered && outcome === "sent" && had) {
        // The service worker sent them meanwhile: show the game as the server has it now.
        pending = [];
        return fetch(window.location.pathname, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (html) { remember(false); if (html) { showAnswer(html); say(ck.word("sent")); } });
      }
      if (!answered) return;
      var shownGame = showAnswer(answered);
      showKept();
      if (outcome === "sent") { remember(false); say(ck.word("sent")); }
      if (outcome !== "problem") return;
      if (!shownGame) { cannotSend(); return; }
      // Said in the entry that needs the look: it goes with it, once the choice is made.
      say("");
      var form = document.querySelector("#game form.entry");
      if (!form) return;
      var look = document.createElement("p");
      look.className = "needs-look";
      look.textContent = ck.word("look");
      form.querySelector(".entry-notes").append(look);
      form.scrollIntoView({ block: "start" });
    }).catch(function () { /* tried again in 15 s */ }).then(function () { sending = false; });
  }

  // The round a refused or conflicting kept round was shown in: once the scorekeeper settles
  // it (saves, keeps the saved round, or replaces it), it is no longer kept, and the round
  // after it is based on the game the server now shows.
  var settling = null;
  document.addEventListener("htmx:before:request", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form.entry")) return;
    settling = pending.filter(function (r) { return r.problem && r.round === Number(form.dataset.round); })[0] || null;
  });
  document.addEventListener("htmx:after:swap", function () {
    var settled = settling;
    var form = document.querySelector("#game form.entry");
    if (!settled || (form && form.dataset.round === String(settled.round))) return;
    settling = null;
    var next = form && form.dataset.round === String(settled.round + 1) && form.hasAttribute("data-fresh");
    var version = next ? form.querySelector("input[name=version]").value : null;
    pending = pending.filter(function (r) { return r !== settled; });
    var following = pending.filter(function (r) { return r.round === settled.round + 1; })[0];
    var chain = remove(settled.id);
    if (following) { following.base = version; chain = chain.then(function () { return put(following); }); }
    chain.then(function () { remember(pending.length > 0); if (pending.length) { showKept(); send(); } });
  });

  // A kept round the game can no longer take (the link was replaced, the game deleted or
  // over): say so, and let the scorekeeper let the kept rounds go.
  function cannotSend() {
    var note = document.getElementById("saved-note");
    if (!note) return;
    note.style.visibility = "";
    note.textContent = ck.word("cannot") + " ";
    var discard = document.createElement("button");
    discard.type = "button";
    discard.className = "secondary";
    discard.textContent = ck.word("letGo");
    discard.addEventListener("click", function () {
      Promise.all(pending.map(function (round) { return remove(round.id); })).then(function () {
        remember(false);
        window.location.reload();
      });
    });
    note.append(discard);
  }

  scope.crownkeeperKept.keep = keep;
  scope.crownkeeperKept.pending = function () { return pending.length > 0; };
  scope.addEventListener("online", function () { send(); });
  setInterval(send, RETRY_MS);
  refresh().then(send);

  // The page that asks before this phone forgets a game: it says so when rounds not sent
  // yet would go too, and lets all this phone keeps of the game go (its drafts too) before
  // the server drops the game from this phone's list.
  var forgetForm = document.querySelector("form.forget[data-code]");
  if (!forgetForm) return;
  var forgetting = forgetForm.dataset.code;
  kept(forgetting).then(function (rounds) {
    document.getElementById("forget-rounds").hidden = rounds.length === 0;
  });
  forgetForm.addEventListener("submit", function (event) {
    event.preventDefault();
    try {
      Object.keys(window.localStorage).filter(function (key) {
        return key === "crownkeeper-kept:" + forgetting || key.indexOf("crownkeeper-draft:" + forgetting + ":") === 0;
      }).forEach(function (key) { window.localStorage.removeItem(key); });
    } catch (error) { /* private mode: nothing was kept there */ }
    forget(forgetting, new URL(forgetForm.dataset.page, window.location.href).href)
      .catch(function () { /* the service worker lets them go as the form is sent */ })
      .then(function () { forgetForm.submit(); });
  });
})(self);
