// Crownkeeper's round entry, fetched by app.js when a round entry is touched or has news:
// the card picker, which answers a tap at once, without a round trip (the server checks
// every limit again when the round is saved); a draft of every tap kept on this phone until
// the round is saved; saving says what happened (or why not, at the Save button); a save
// from another phone is shown.
(function () {
  "use strict";
  var ck = window.crownkeeper, say = ck.say;

  // --- the card picker ----------------------------------------------------------------------
  function rankOf(code) {
    code = code.toUpperCase();
    return code === "JOKER" ? code : code.replace(/[SHCDR]$/, "");
  }

  function keyFor(seat, code) {
    return seat.querySelector('.key[data-code="' + rankOf(code) + '"]');
  }

  function cardsOf(seat) {
    var value = seat.querySelector('input[type=hidden][name^="cards_"]').value;
    return value ? value.split(",") : [];
  }

  function countAcrossTable(form, code) {
    var count = 0;
    form.querySelectorAll("fieldset.seat:not(.out)").forEach(function (seat) {
      cardsOf(seat).forEach(function (card) { if (rankOf(card) === code) count += 1; });
    });
    return count;
  }

  function pointsOf(seat, cards) {
    var total = 0;
    cards.forEach(function (code) {
      var key = keyFor(seat, code.toUpperCase());
      total += key ? Number(key.dataset.points) : 0;
    });
    return total;
  }
  function showSeatTotal(seat, cards) {
    seat.querySelector(".seat-total").textContent = pointsOf(seat, cards);
  }

  function drawChips(seat, cards) {
    ck.drawChipRow(seat.querySelector(".chips"), cards, function (code, index) {
      var key = keyFor(seat, code);
      var joker = code.toUpperCase() === "JOKER";
      var rank = key ? key.firstChild.textContent : code;
      return {
        value: seat.dataset.seat + ":" + index,
        className: "chip" + (joker ? " joker" : "") + (key && key.classList.contains("wild") ? " wild" : ""),
        text: rank + suitSymbol(code),
        name: !key ? code : joker ? key.dataset.name : suitName(code, key.dataset.name) + ", " + rank,
      };
    });
  }

  var SUITS = { S: "♠", H: "♥", C: "♣", D: "♦", R: "★" };
  function suitSymbol(code) {
    code = code.toUpperCase();
    return code === "JOKER" ? "" : (SUITS[code.slice(-1)] || "");
  }
  // "Seven of hearts" for a card with a suit, "Seven" for one tapped on a rank's key.
  function suitName(code, rank) {
    var suit = code.toUpperCase().slice(-1);
    return SUITS[suit] ? ck.word(suit, { rank: rank }) : rank;
  }

  function setCards(seat, cards) {
    seat.querySelector('input[type=hidden][name^="cards_"]').value = cards.join(",");
    // Other cards: a confirmation given (or asked for) was about the cards before.
    seat.querySelectorAll('input[name^="confirmed_"], .confirm-kept').forEach(function (old) { old.remove(); });
    drawChips(seat, cards);
    showSeatTotal(seat, cards);
    if (cards.length) seat.querySelector("input[name^=zero_]").checked = false;
    seat.dispatchEvent(new Event("entry:change", { bubbles: true }));
  }

  // A message in the seat, above its chips, comes and goes with taps: the page scrolls by
  // what it moved, so the keys stay under the finger.
  function tap(button) {
    var pad = button.closest("fieldset.seat").querySelector(".keypad"), top = pad.getBoundingClientRect().top;
    change(button);
    scrollBy(0, pad.getBoundingClientRect().top - top);
  }
  function change(button) {
    var form = button.form;
    var seat = button.closest("fieldset.seat");
    var name = seat.querySelector(".seat-name").textContent;
    var seatError = seat.querySelector(".error");
    var tableError = form.querySelector(".table-errors");
    var cards = cardsOf(seat);
    say(seatError, "");
    say(tableError, "");
    if (button.name === "remove") {
      cards.splice(Number(button.value.split(":")[1]), 1);
      setCards(seat, cards);
      var next = seat.querySelector(".chip") || seat.querySelector(".key");
      if (next) next.focus();
      return;
    }
    var code = button.dataset.code;
    var dealt = Number(form.dataset.cardsDealt);
    if (cards.length >= dealt) {
      say(seatError, ck.words("many", dealt, { name: name }));
      return;
    }
    if (code === "JOKER" && countAcrossTable(form, code) >= Number(form.dataset.jokers)) {
      say(tableError, ck.words("jokers", Number(form.dataset.jokers)));
      return;
    }
    if (code !== "JOKER" && countAcrossTable(form, code) >= Number(form.dataset.rankCopies)) {
      say(tableError, ck.words("ranks", Number(form.dataset.rankCopies), { name: button.dataset.name }));
      return;
    }
    cards.push(code);
    setCards(seat, cards);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("form.entry button[name=add], form.entry button[name=remove]");
    if (!button) return;
    event.preventDefault();
    tap(button);
  });

  function showWentOut(form) {
    var out = form.querySelector("input[name=went_out]:checked");
    form.querySelectorAll("fieldset.seat").forEach(function (seat) {
      seat.classList.toggle("out", !!out && seat.dataset.seat === out.value);
      var cards = cardsOf(seat);
      if (seat.classList.contains("out")) seat.querySelector(".seat-total").textContent = 0;
      else showSeatTotal(seat, cards);
    });
  }
  function changed(input) {
    var form = input.closest("form.entry");
    if (!form) return;
    if (input.name === "went_out") showWentOut(form);
    // "Laid everything down: 0" means no cards: it clears any tapped for the seat.
    if (input.name.indexOf("zero_") === 0 && input.checked) {
      var seat = input.closest("fieldset.seat");
      seat.querySelector('input[name^="points_"]').value = "";
      say(seat.querySelector(".error"), "");
      setCards(seat, []);
    }
  }
  document.addEventListener("change", function (event) { changed(event.target); });

  ck.cardsOf = cardsOf;
  ck.pointsOf = pointsOf;
  ck.setCards = setCards;
  ck.showWentOut = showWentOut;
  ck.tap = tap;

  // --- drafts and saving --------------------------------------------------------------------
  var DRAFT = "crownkeeper-draft:";
  // A draft: who went out and each seat's [cards, typed points, laid everything down], with
  // the time of its last tap (at) once kept.
  function entriesOf(form) {
    return {
      out: (form.querySelector("input[name=went_out]:checked") || {}).value,
      seats: Array.from(form.querySelectorAll("fieldset.seat"), function (seat) {
        return [cardsOf(seat), seat.querySelector('input[name^="points_"]').value, seat.querySelector("input[name^=zero_]").checked];
      }),
    };
  }
  function draftOf(form) { return JSON.stringify(entriesOf(form)); }
  function blankDraft(draft) {
    return !draft.out && draft.seats.every(function (seat) { return !seat[0].length && !seat[1] && !seat[2]; });
  }
  function store(action, key, value) {
    try { return window.localStorage[action](key, value); } catch (error) { return null; }
  }
  function keepDraft(form) {
    if (!form || form.dataset.restoring) return;
    var draft = entriesOf(form);
    draft.at = Date.now();
    store(blankDraft(draft) ? "removeItem" : "setItem", DRAFT + form.dataset.draft, JSON.stringify(draft));
  }
  function note(form, className, text, button) {
    var notes = form.querySelector(".entry-notes");
    var line = notes.querySelector("." + className) || notes.appendChild(document.createElement("p"));
    line.className = className;
    line.textContent = text + " ";
    if (button) line.append(button);
  }
  // The entries of a draft put in the form (no draft: a blank round).
  function fill(form, kept) {
    form.dataset.restoring = 1;
    form.querySelectorAll("input[name=went_out]").forEach(function (radio) { radio.checked = radio.value === kept.out; });
    form.querySelectorAll("fieldset.seat").forEach(function (seat, index) {
      var entry = kept.seats[index] || [[], "", false];
      var typed = seat.querySelector('input[name^="points_"]');
      typed.value = entry[1];
      if (entry[1]) typed.closest("details").open = true;
      say(seat.querySelector(".error"), "");
      setCards(seat, entry[0]);
      seat.querySelector("input[name^=zero_]").checked = entry[2];
    });
    showWentOut(form);
    delete form.dataset.restoring;
  }
  // A tap's time as the page's language writes it: the day too when it was not today.
  function clock(at) {
    var when = new Date(at);
    if (when.toDateString() === new Date().toDateString()) return ck.clock(when);
    return when.toLocaleString(document.documentElement.lang || undefined,
      { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  }
  // Taps this phone kept for a round not saved yet come back, and say so, with a way out.
  function restoreDraft(form) {
    var kept = JSON.parse(store("getItem", DRAFT + form.dataset.draft) || "null");
    if (!kept) return;
    var at = kept.at;
    delete kept.at;
    if (JSON.stringify(kept) === draftOf(form)) return;
    fill(form, kept);
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "clear-draft";
    clear.textContent = ck.word("clear");
    note(form, "restored", ck.word((form.hasAttribute("data-tiebreak") ? "backT" : "backR") + (at ? "" : "0"),
      { round: form.dataset.round, time: at && clock(at) }), clear);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest(".clear-draft, .try-again, button[name=keep]");
    if (!button) return;
    var form = button.closest("form.entry");
    if (button.name === "keep") { store("removeItem", DRAFT + form.dataset.draft); return; }
    if (button.className === "try-again") { form.requestSubmit(form.querySelector("button.save")); return; }
    store("removeItem", DRAFT + form.dataset.draft);
    fill(form, { seats: [] });
    button.parentNode.remove();
    form.querySelector("input[name=went_out]").focus({ preventScroll: true });
  });

  // A save the server refused: the seat its message names (the server marks it autofocus),
  // else the choice or the table's message, scrolled into view and given the focus.
  function showProblem(form) {
    var problem = form.querySelector("fieldset[autofocus], .conflict, .table-errors:not(:empty)");
    if (!problem) return;
    problem.scrollIntoView({ block: problem.matches(".table-errors") ? "center" : "start" });
    problem.tabIndex = -1;
    problem.focus({ preventScroll: true });
  }

  function saveButton(form, busy) {
    var save = form.querySelector("button.save");
    save.dataset.label = save.dataset.label || save.textContent;
    save.disabled = busy;
    save.textContent = busy ? ck.word("saving") : save.dataset.label;
  }
  document.addEventListener("htmx:before:request", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form.entry")) return;
    if (form.saving) { event.preventDefault(); return; }
    var kept = window.crownkeeperKept;
    // A round entered after one kept on this phone waits behind it, kept too.
    if (kept && kept.keep && form.dataset.keptBase) { event.preventDefault(); kept.keep(form); return; }
    form.saving = event.detail.ctx;
    say(form.querySelector(".save-alert"), "");
    saveButton(form, true);
  });
  document.addEventListener("htmx:finally:request", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form.entry") || form.saving !== event.detail.ctx) return;
    form.saving = null;
    saveButton(form, false);
    var status = event.detail.ctx.response ? event.detail.ctx.response.status : 0;
    if (status && status < 500) return;
    // No connection, or the server or its proxy not answering: the round is kept on the phone
    // (where this phone cannot, it says so at the button, every tap kept).
    if (!status || status >= 502) ck.withKept(function (kept) { kept.keep(form); }, function () { notSaved(form, status); });
    else notSaved(form, status);
  });
  function notSaved(form, status) {
    var alert = form.querySelector(".save-alert");
    var retry = document.createElement("button");
    retry.type = "button";
    retry.className = "try-again";
    retry.textContent = ck.word("again");
    alert.textContent = ck.word(status ? "err" : "err0", { round: form.dataset.round }) + " ";
    alert.append(retry);
    alert.scrollIntoView({ block: "center" });
  }

  // The round on screen from its top, with the notes above it (what was saved or kept).
  ck.bringUp = function () {
    var notes = document.querySelector("#game .notes"), status = document.getElementById("status");
    if (notes) notes.scrollIntoView({ block: "start" });
    if (status) status.focus({ preventScroll: true });
  };

  var savedTimer;
  function announceSave() {
    var game = document.querySelector("#game[data-saved]");
    var saved = document.getElementById("saved-note");
    if (!game || !saved) return;
    var number = game.dataset.saved;
    delete game.dataset.saved;
    var prefix = DRAFT + game.dataset.code + ":" + number + ":";
    Object.keys(store("valueOf") || {}).forEach(function (key) {
      if (key.indexOf(prefix) === 0) store("removeItem", key);
    });
    saved.textContent = game.dataset.savedText || ck.word("saved", { round: number });
    clearTimeout(savedTimer);
    // Hidden, its room kept: nothing under it moves when it goes.
    savedTimer = setTimeout(function () { saved.style.visibility = "hidden"; }, 6000);
    if (window.location.search) history.replaceState(null, "", window.location.pathname);
    ck.bringUp();
  }

  function showOtherPhoneSave(form) {
    var row = document.querySelector('#sheet tr[data-saved][data-round="' + form.dataset.round + '"]');
    if (!row || !form.hasAttribute("data-fresh") || form.saving) return;
    var cells = row.querySelectorAll("td");
    // "Your taps are kept" only when there are taps to keep.
    var tapped = !blankDraft(entriesOf(form));
    note(form, "other-phone", ck.word(tapped ? "other" : "other0", { round: form.dataset.round }));
    form.querySelectorAll("fieldset.seat").forEach(function (seat, index) {
      var cell = cells[index];
      var shown = seat.querySelector(".saved-other") || seat.querySelector(".went-out").insertAdjacentElement("beforebegin", document.createElement("span"));
      shown.className = "saved-other";
      shown.textContent = cell.querySelector(".went-out-mark") ? ck.word("byOut") : ck.word("byPts", { points: parseInt(cell.textContent, 10) });
    });
  }

  function roundEntry() {
    announceSave();
    document.querySelectorAll("form.entry").forEach(function (form) {
      if (!form.dataset.checked) {
        form.dataset.checked = 1;
        restoreDraft(form);
        showProblem(form);
      }
      showOtherPhoneSave(form);
    });
  }
  ["change", "input", "entry:change"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      keepDraft(event.target.closest && event.target.closest("form.entry"));
    });
  });
  document.addEventListener("htmx:after:swap", roundEntry);
  roundEntry();
  playWaiting(ck.waiting || []);
  ck.waiting = null;
  // A tap made while this script was on its way is kept too.
  document.querySelectorAll("form.entry").forEach(keepDraft);

  // Taps made while this script was on its way (app.js kept them), played now in their order,
  // a Save tapped meanwhile after the taps before it.
  // A chip tapped then was one of those the page came with: each seat's go first, at once,
  // so the places the chips had on the page still name their cards.
  function playWaiting(waiting) {
    var chips = waiting.filter(function (target) { return target.name === "remove" && target.isConnected; });
    new Set(chips.map(function (chip) { return chip.closest("fieldset.seat"); })).forEach(function (seat) {
      var gone = chips.filter(function (chip) { return seat.contains(chip); }).map(function (chip) { return Number(chip.value.split(":")[1]); });
      setCards(seat, cardsOf(seat).filter(function (card, index) { return gone.indexOf(index) < 0; }));
    });
    waiting.forEach(function (target) {
      if (!target.isConnected || target.name === "remove") return;
      if (target.name === "add") tap(target);
      else if (target.matches("button")) target.form.requestSubmit(target);
      else changed(target);
    });
  }
})();
