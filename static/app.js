// What a page needs before its first touch; later scripts come when used (docs/DEVELOPING.md).
(function () {
  "use strict";

  // The page's words (templates/_words.html), then words-{lang}.js's; %(name)s filled.
  var WORDS;
  function wordOf(key) {
    if (!WORDS) try { WORDS = JSON.parse(document.getElementById("words").textContent); } catch (error) { WORDS = {}; }
    return key in WORDS ? WORDS[key] : (self.crownkeeperWords || {})[key];
  }
  function filled(text, values) {
    return String(text).replace(/%\((\w+)\)s/g, function (all, name) { return name in values ? values[name] : all; });
  }
  function word(key, values) {
    var text = wordOf(key);
    return filled(text === undefined ? key : text, values || {});
  }
  function words(key, n, values) {
    var forms = wordOf(key) || [key, key];
    return filled(forms[+(WORDS.plural === "n>1" ? n > 1 : n !== 1)], Object.assign({ num: n }, values));
  }
  // A script fetched later, in order after its words (once).
  var wordsAdded;
  function addScript(name, onload, onerror) {
    if (!wordsAdded) addScript(wordsAdded = "words-" + document.documentElement.lang);
    document.head.append(Object.assign(document.createElement("script"), { async: false, onload: onload, onerror: onerror,
      src: document.querySelector("script[src*='app.js']").src.replace("app.js", name + ".js") }));
  }
  function clock(date) {
    return date.toLocaleTimeString(document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit" });
  }

  // A row of chips, one per card; tapping a chip removes its card.
  function drawChipRow(container, cards, describe) {
    container.replaceChildren();
    if (!cards.length) {
      var none = document.createElement("span");
      none.className = "no-cards";
      none.textContent = word("none");
      container.append(none);
    }
    cards.forEach(function (code, index) {
      var look = describe(code, index);
      var chip = document.createElement("button");
      chip.type = "submit";
      chip.name = "remove";
      chip.value = look.value;
      chip.className = look.className;
      chip.textContent = look.text;
      chip.setAttribute("aria-label", word("rm", { card: look.name }));
      if (/\bwild\b/.test(look.className)) chip.dataset.wild = word("wild");
      container.append(chip);
    });
    container.scrollLeft = container.scrollWidth;  // the newest chip in view
  }

  // Enter in a points box closes the keyboard; in a name box it moves to the next name.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !event.target.matches("input")) return;
    if (event.target.closest("form.entry")) {
      event.preventDefault();
      event.target.blur();
    } else if (event.target.closest("#new-game-form") && event.target.name.indexOf("name_") === 0) {
      event.preventDefault();
      var names = Array.from(event.target.form.querySelectorAll('input[name^="name_"]'));
      var next = names[names.indexOf(event.target) + 1];
      if (next) next.focus();
      else event.target.form.querySelector('button[value="create"]').click();
    }
  });

  function say(element, message) {
    if (element) element.textContent = message;
  }

  // Taps before round-entry.js arrives wait for it, and it plays them.
  var waiting = [];
  var waitForPicker = function(event, target) {
    if (window.crownkeeper.tap || !target) return;
    if (event.type === "click") event.preventDefault();
    waiting.push(target);
    window.crownkeeper.waiting = waiting;
    loadRoundEntry();
  };
  document.addEventListener("click", function (event) {
    var button = event.target.closest("form.entry button[name=add], form.entry button[name=remove]");
    // A save while taps wait waits behind them.
    if (!button && waiting.length) button = event.target.closest("form.entry button:not([type=button])");
    waitForPicker(event, button);
  });
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.closest("form.entry") && (input.name === "went_out" || input.name.indexOf("zero_") === 0)) waitForPicker(event, input);
  });
  // The script could not come: taps post, as without it.
  document.addEventListener("error", function (event) {
    if (/round-entry\.js/.test(event.target.src)) waitForPicker = function () {};
  }, true);

  function readAloud(event) {
    var button = event.target.closest(".say-wild");
    if (!button || !window.speechSynthesis) return;
    window.speechSynthesis.cancel();
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(button.dataset.say));
  }
  document.addEventListener("click", readAloud);

  function showSpeech() {
    if (!window.speechSynthesis) return;
    document.querySelectorAll(".say-wild[hidden]").forEach(function (b) { b.hidden = false; });
  }
  document.addEventListener("DOMContentLoaded", showSpeech);
  document.addEventListener("htmx:after:swap", showSpeech);

  // Live updates: server-sent events of htmx partials, read here (docs/DEVELOPING.md).
  var offlineSince = null, offlineText = "";
  function liveState(element, state) {
    var text = element.querySelector(".live-text");
    // Offline is offline, whatever a stream seems to do.
    if ((state === "reconnecting" || state === "open") && !navigator.onLine) {
      // Say since when, and the round shown.
      offlineSince = offlineSince || new Date();
      var round = document.querySelector(".status[data-round]");
      state = "offline";
      offlineText = round ? word("offR", { time: clock(offlineSince), round: round.dataset.round }) :
        word("offE", { time: clock(offlineSince) });
    } else if (state === "open") offlineSince = null;
    element.dataset.sse = state;
    if (text) text.textContent = state === "offline" ? offlineText : word(state);
  }
  var stream = {};  // the element followed, and what stops its stream
  function follow(element, attempt) {
    if (stream.stop) stream.stop.abort();
    var stop = new AbortController();
    stream = { element: element, stop: stop };
    fetch(element.dataset.events, { headers: { Accept: "text/event-stream" }, signal: stop.signal }).then(function (response) {
      var status = response.status;
      if (status === 410) return window.location.reload();  // the link was replaced: its page says so
      if (status === 404 || status === 403) return liveState(element, "closed");
      if (status === 503) return pollLive(element);
      if (!response.ok) throw status;
      delete element.dataset.polling;
      attempt = 0;
      liveState(element, "open");
      var reader = response.body.getReader(), decoder = new TextDecoder(), text = "";
      return (function read() {
        return reader.read().then(function (chunk) {
          if (chunk.done) throw "ended";
          var events = (text += decoder.decode(chunk.value, { stream: true })).split(/\r?\n\r?\n/);
          text = events.pop();
          return events.reduce(function (shown, event) {
            return shown.then(function () { return element.isConnected && showEvent(element, event); });
          }, Promise.resolve()).then(read);
        });
      })();
    }).catch(function () {
      if (stop.signal.aborted || !element.isConnected || element.dataset.polling) return;
      liveState(element, "reconnecting");
      setTimeout(function () {
        if (stream.stop === stop) follow(element, attempt + 1);
      }, Math.min(500 * Math.pow(2, attempt), 8000) * (0.7 + 0.6 * Math.random()));
    });
  }
  // One event: its id (the game's version) and data, swapped by htmx.
  function showEvent(element, event) {
    var data = [], id = "";
    event.split(/\r?\n/).forEach(function (line) {
      var field = /^(data|id)(?::|$) ?(.*)$/.exec(line);
      if (field && field[1] === "id") id = field[2];
      else if (field) data.push(field[2]);
    });
    return data.length && swapLive(element, data.join("\n")).then(function () {
      element.dispatchEvent(new CustomEvent("crownkeeper:live", { bubbles: true, detail: { id: id } }));
    });
  }
  function swapLive(element, html) {
    return window.htmx.swap({ sourceElement: element, target: element, text: html, swap: "innerHTML" });
  }
  function followLive() {
    var live = document.getElementById("live");
    if (live && live.dataset.events && live !== stream.element && !document.hidden) follow(live, 0);
  }
  document.addEventListener("DOMContentLoaded", followLive);
  document.addEventListener("htmx:after:swap", followLive);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) followLive();
    else if (stream.stop && !stream.element.dataset.polling) { stream.stop.abort(); stream = {}; }
  });
  window.addEventListener("offline", function () {
    var live = document.getElementById("live");
    if (live) liveState(live, "reconnecting");
  });
  // No room for a stream (503): the regions every 15 s, the stream tried again each time.
  function pollLive(element) {
    liveState(element, "polling");
    if (element.dataset.polling) return catchUp(element);
    element.dataset.polling = "1";
    var timer = setInterval(function () {
      if (element.isConnected && element.dataset.polling) follow(element, 0);
      else clearInterval(timer);
    }, 15000);
  }
  function catchUp(element) {
    return fetch(element.dataset.poll, { headers: { "HX-Request": "true" } }).then(function (response) {
      if (response.status === 410) window.location.reload();  // the link was replaced
      return response.ok ? response.text() : "";
    }).then(function (html) {
      return html && swapLive(element, html).then(function () { return html; });
    });
  }
  // Back online: catch up at once.
  window.addEventListener("online", function () {
    var live = document.getElementById("live");
    if (!live || live.dataset.sse !== "offline") return;
    catchUp(live).then(function (html) { if (html) liveState(live, "open"); }).catch(function () {});
  });

  // Copy a link: the clipboard API needs HTTPS or localhost; elsewhere select the text.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy");
    if (!button) return;
    var field = document.getElementById(button.dataset.copy);
    var note = button.closest("details").querySelector(".copy-note") || button.parentElement;
    field.focus();
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () { say(note, word("copied")); });
    } else {
      say(note, word("select"));
    }
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.web-share");
    if (!button || !navigator.share) return;
    navigator.share({ title: document.title, text: button.dataset.text, url: button.dataset.url }).catch(function () {});
  });

  function showSharing() {
    document.querySelectorAll("button.copy[hidden]").forEach(function (b) { b.hidden = false; });
    if (navigator.share) document.querySelectorAll("button.web-share[hidden]").forEach(function (b) { b.hidden = false; });
  }
  document.addEventListener("DOMContentLoaded", showSharing);
  document.addEventListener("htmx:after:swap", showSharing);

  // Keep the screen on while a game is open (needs HTTPS or localhost, and a phone that can).
  var wakeLock = null;
  function wakeNote(message) {
    document.querySelectorAll(".wake-note").forEach(function (note) { note.textContent = message; });
  }
  function wantWake() {
    var toggle = document.querySelector(".wake-toggle");
    return toggle && toggle.checked && document.visibilityState === "visible" && !document.querySelector(".status.finished");
  }
  function updateWake() {
    if (!document.querySelector(".wake-toggle")) return;
    if (!("wakeLock" in navigator)) {
      wakeNote(word(window.isSecureContext ? "w0" : "w1"));
      return;
    }
    if (wantWake() && !wakeLock) {
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        wakeNote(word("w2"));
        lock.addEventListener("release", function () { wakeLock = null; });
      }).catch(function () { wakeNote(word("w3")); });
    } else if (!wantWake() && wakeLock) {
      wakeLock.release();
      wakeNote(word("w4"));
    }
  }
  document.addEventListener("change", function (event) {
    if (event.target.classList.contains("wake-toggle")) updateWake();
  });
  document.addEventListener("visibilitychange", updateWake);
  document.addEventListener("DOMContentLoaded", updateWake);
  document.addEventListener("htmx:after:swap", updateWake);

  // Whole-hand mode: picker.js and hand.css come on the first tap, then the dialog opens.
  document.addEventListener("click", function (event) {
    var open = event.target.closest(".whole-hand-open");
    if (!open || window.crownkeeper.picker) return;
    window.crownkeeper.picker = "loading";
    var style = document.createElement("link");
    var waiting = 2;
    function arrived() { if (--waiting === 0) open.click(); }
    style.rel = "stylesheet";
    style.href = document.querySelector("script[src*='app.js']").src.replace("app.js", "hand.css");
    style.onload = style.onerror = arrived;
    document.head.append(style);
    addScript("picker", arrived);
  });
  function showWholeHand() {
    document.querySelectorAll(".whole-hand-open[hidden]").forEach(function (b) { b.hidden = false; });
  }
  document.addEventListener("DOMContentLoaded", showWholeHand);
  document.addEventListener("htmx:after:swap", showWholeHand);

  // round-entry.js comes when the entry is first touched or has something to show.
  var roundEntryScript;
  function loadRoundEntry() {
    if (roundEntryScript) return;
    roundEntryScript = true;
    addScript("round-entry");
  }
  function roundEntryWanted() {
    var form = document.querySelector("form.entry[data-draft]");
    var draft;
    try { draft = form && window.localStorage.getItem("crownkeeper-draft:" + form.dataset.draft); } catch (error) { draft = null; }
    if (draft || document.querySelector("#game[data-saved]") ||
        (form && form.hasAttribute("data-fresh") && document.querySelector('#sheet tr[data-saved][data-round="' + form.dataset.round + '"]'))) loadRoundEntry();
  }
  ["pointerdown", "focusin", "keydown"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (event.target.closest && event.target.closest("form.entry")) loadRoundEntry();
    });
  });
  document.addEventListener("DOMContentLoaded", roundEntryWanted);
  document.addEventListener("htmx:after:swap", roundEntryWanted);
  window.crownkeeper = { say: say,
    drawChipRow: drawChipRow, makeRoving: makeRoving, word: word, words: words, clock: clock };

  // Keypads are one tab stop each: arrow keys, Home and End move between keys (roving tabindex).
  var PADS = ".keypad, .suit-grid";
  function makeRoving(keys, current) {
    keys.forEach(function (key) { key.tabIndex = key === (current || keys[0]) ? 0 : -1; });
  }
  function rovingPads() {
    document.querySelectorAll(PADS).forEach(function (pad) {
      if (!pad.querySelector('.key[tabindex="0"]')) makeRoving(pad.querySelectorAll(".key"));
    });
  }
  document.addEventListener("keydown", function (event) {
    var key = event.target.closest && event.target.closest(".key");
    var pad = key && key.closest(PADS);
    if (!pad) return;
    var keys = Array.from(pad.querySelectorAll(".key"));
    var at = keys.indexOf(key);
    var columns = getComputedStyle(pad).gridTemplateColumns.split(" ").length;
    var step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns, Home: -at, End: keys.length }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    var next = keys[Math.max(0, Math.min(keys.length - 1, at + step))];
    makeRoving(keys, next);
    next.focus();
  });
  document.addEventListener("DOMContentLoaded", rovingPads);
  document.addEventListener("htmx:after:swap", rovingPads);

  // The header's hand checker opens at the round on screen, also after a save or live update.
  function handLinkRound() {
    var status = document.querySelector(".status[data-round]");
    var link = document.getElementById("hand-link");
    if (status && link) link.search = "?round=" + status.dataset.round;
  }
  document.addEventListener("htmx:after:swap", handLinkRound);

  // kept-rounds.js comes when a save fails, or on load when this game has rounds kept.
  function withKept(then, otherwise) {
    if (window.crownkeeperKept) { then(window.crownkeeperKept); return; }
    addScript("kept-rounds", function () { then(window.crownkeeperKept); }, otherwise);
  }
  window.crownkeeper.withKept = withKept;
  window.addEventListener("load", function () {
    var manifest = document.querySelector("link[rel=manifest]");
    if (navigator.serviceWorker && manifest) navigator.serviceWorker.register(manifest.href.replace(/manifest\.webmanifest$/, "sw.js")).catch(function () {});
    var game = document.querySelector("#game[data-code]");
    var kept;
    try { kept = game && window.localStorage.getItem("crownkeeper-kept:" + game.dataset.code); } catch (error) { kept = null; }
    // Without a service worker (plain HTTP) it comes now, as none could fetch it in a drop.
    var worker = navigator.serviceWorker;
    if (game && (worker ? worker.controller || kept : document.querySelector("form.entry"))) withKept(function () {});
  });
})();
