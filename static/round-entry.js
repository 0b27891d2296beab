// Crownkeeper's round entry, fetched by app.js when a round entry is touched or has news:
// a draft of every tap kept on this phone until the round is saved; saving says what
// happened (or why not, at the Save button); a save from another phone is shown.
(function () {
  "use strict";
  var ck = window.crownkeeper, cardsOf = ck.cardsOf, setCards = ck.setCards, showWentOut = ck.showWentOut, say = ck.say;
  var DRAFT = "crownkeeper-draft:";
  function draftOf(form) {
    return JSON.stringify({
      out: (form.querySelector("input[name=went_out]:checked") || {}).value,
      seats: Array.from(form.querySelectorAll("fieldset.seat"), function (seat) {
        return [cardsOf(seat), seat.querySelector('input[name^="points_"]').value, seat.querySelector("input[name^=zero_]").checked];
      }),
    });
  }
  function blankDraft(draft) {
    draft = JSON.parse(draft);
    return !draft.out && draft.seats.every(function (seat) { return !seat[0].length && !seat[1] && !seat[2]; });
  }
  function store(action, key, value) {
    try { return window.localStorage[action](key, value); } catch (error) { return null; }
  }
  function keepDraft(form) {
    if (!form || form.dataset.restoring) return;
    var draft = draftOf(form);
    store(blankDraft(draft) ? "removeItem" : "setItem", DRAFT + form.dataset.draft, draft);
  }
  function note(form, className, text, button) {
    var notes = form.querySelector(".entry-notes");
    var line = notes.querySelector("." + className) || notes.appendChild(document.createElement("p"));
    line.className = className;
    line.textContent = text + " ";
    if (button) line.append(button);
  }
  function restoreDraft(form) {
    if (form.dataset.checked) return;
    form.dataset.checked = 1;
    var draft = store("getItem", DRAFT + form.dataset.draft);
    if (!draft || draft === draftOf(form)) return;
    form.dataset.restoring = 1;
    var kept = JSON.parse(draft);
    form.querySelectorAll("input[name=went_out]").forEach(function (radio) { radio.checked = radio.value === kept.out; });
    form.querySelectorAll("fieldset.seat").forEach(function (seat, index) {
      var entry = kept.seats[index] || [[], "", false];
      var typed = seat.querySelector('input[name^="points_"]');
      typed.value = entry[1];
      if (entry[1]) typed.closest("details").open = true;
      setCards(seat, entry[0]);
      seat.querySelector("input[name^=zero_]").checked = entry[2];
    });
    showWentOut(form);
    delete form.dataset.restoring;
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "clear-draft";
    clear.textContent = "Clear them";
    note(form, "restored", "Restored entries you had not saved yet.", clear);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest(".clear-draft, .try-again, button[name=keep]");
    if (!button) return;
    var form = button.closest("form.entry");
    if (button.name === "keep") { store("removeItem", DRAFT + form.dataset.draft); return; }
    if (button.className === "try-again") { form.requestSubmit(form.querySelector("button.save")); return; }
    store("removeItem", DRAFT + form.dataset.draft);
    window.location.reload();
  });

  function saveButton(form, busy) {
    var save = form.querySelector("button.save");
    save.dataset.label = save.dataset.label || save.textContent;
    save.disabled = busy;
    save.textContent = busy ? "Saving…" : save.dataset.label;
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
    retry.textContent = "Try again";
    alert.textContent = "Round " + form.dataset.round + " is not saved: " +
      (status ? "the server had a problem." : "the server could not be reached.") + " Every tap is kept on this phone. ";
    alert.append(retry);
    alert.scrollIntoView({ block: "center" });
  }

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
    saved.textContent = game.dataset.savedText || "Round " + number + " saved";
    // Once the game is over the note sits low, off the "Game over" heading.
    saved.classList.toggle("over", game.hasAttribute("data-over"));
    clearTimeout(savedTimer);
    savedTimer = setTimeout(function () { saved.textContent = ""; }, 6000);
    if (window.location.search) history.replaceState(null, "", window.location.pathname);
    var status = document.getElementById("status");
    status.scrollIntoView({ block: "start" });
    status.focus({ preventScroll: true });
  }

  function showOtherPhoneSave(form) {
    var row = document.querySelector('#sheet tr[data-saved][data-round="' + form.dataset.round + '"]');
    if (!row || !form.hasAttribute("data-fresh") || form.saving) return;
    var cells = row.querySelectorAll("td");
    // "Your taps are kept" only when there are taps to keep.
    var tapped = !blankDraft(draftOf(form));
    note(form, "other-phone", "Another phone saved round " + form.dataset.round + " a moment ago. What it saved is shown beside each player" +
      (tapped ? "; your taps are kept here, not saved." : "."));
    form.querySelectorAll("fieldset.seat").forEach(function (seat, index) {
      var cell = cells[index];
      var shown = seat.querySelector(".saved-other") || seat.querySelector(".went-out").insertAdjacentElement("beforebegin", document.createElement("span"));
      shown.className = "saved-other";
      shown.textContent = "Saved by the other phone: " + (cell.querySelector(".went-out-mark") ? "went out" : parseInt(cell.textContent, 10));
    });
  }

  function roundEntry() {
    announceSave();
    document.querySelectorAll("form.entry").forEach(function (form) {
      restoreDraft(form);
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
  // A tap made while this script was on its way is kept too.
  document.querySelectorAll("form.entry").forEach(keepDraft);
})();
