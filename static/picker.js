// The hand picker: the hand checker's page (/hand) and whole-hand mode in round entry.
// Taps change the hand at once; htmx then asks the server for the best layout. Loaded by
// /hand, and fetched by round entry on the first tap of a whole-hand button (app.js).
(function () {
  "use strict";
  var ck = window.crownkeeper;
  ck.picker = true;

  // The whole-hand dialog opens on its first card, ready for the first tap.
  function focusFirstCard(dialog) {
    var keys = dialog.querySelectorAll(".suit-grid .key");
    if (!keys.length) return;
    ck.makeRoving(keys);
    keys[0].focus();
  }

  var MAX_HAND = 14;
  function handCards(form) {
    var value = form.querySelector("input.hand-cards").value;
    return value ? value.split(",") : [];
  }
  function setHand(form, cards) {
    form.querySelector("input.hand-cards").value = cards.join(",");
    ck.drawChipRow(form.querySelector(".hand-chips"), cards, function (code, index) {
      var key = form.querySelector('.suit-grid button[value="' + code + '"]');
      var rank = key ? key.dataset.rank : code;
      return {
        value: index,
        className: "chip " + (key ? key.className.replace("key", "") : ""),
        text: key ? key.textContent : code,
        // "7 Seven of hearts" on the key, "remove Seven of hearts, 7" on the chip
        name: !key ? code : rank === "JOKER" ? key.getAttribute("aria-label") : key.getAttribute("aria-label").slice(rank.length + 1) + ", " + rank,
      };
    });
    form.dispatchEvent(new Event("change", { bubbles: true }));
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest(".hand-form .suit-grid button[name=add], .hand-form .hand-chips button[name=remove]");
    if (!button) return;
    event.preventDefault();
    var form = button.form;
    var cards = handCards(form);
    if (button.name === "remove") cards.splice(Number(button.value), 1);
    else if (cards.length < MAX_HAND) cards.push(button.value);
    setHand(form, cards);
  });
  document.addEventListener("change", function (event) {
    if (event.target.name !== "cards_dealt" || !event.target.form.classList.contains("hand-form")) return;
    var wild = event.target.selectedOptions[0].dataset.wild;
    event.target.form.querySelectorAll(".suit-grid .key").forEach(function (key) {
      key.classList.toggle("wild", key.dataset.rank === wild || key.dataset.rank === "JOKER");
    });
    setHand(event.target.form, handCards(event.target.form));  // chips show the new wild rank
  });

  // Whole-hand mode: tap a player's whole hand, let the checker find the leftover, use it.
  var handSeat = null;
  document.addEventListener("click", function (event) {
    var open = event.target.closest(".whole-hand-open");
    if (!open) return;
    var dialog = open.closest("form.entry").parentElement.querySelector("dialog.whole-hand");
    handSeat = open.closest("fieldset.seat");
    dialog.querySelector("h2").textContent = ck.word("hand", { name: open.dataset.name });
    dialog.querySelector(".whole-hand-result").replaceChildren();
    dialog.querySelector(".whole-hand-use").disabled = true;
    dialog.querySelector(".whole-hand-use").textContent = ck.word("use", { name: open.dataset.name });
    var form = dialog.querySelector("form");
    var slot = form.querySelector(".picker-slot");
    dialog.showModal();
    // The suit grid is fetched the first time, to keep the game page light.
    if (slot.querySelector(".suit-grid")) { setHand(form, []); focusFirstCard(dialog); }
    else { dialog.dataset.focusFirst = 1; window.htmx.ajax("GET", form.dataset.picker, { target: slot, swap: "innerHTML" }); }
  });
  document.addEventListener("htmx:after:swap", function (event) {
    var dialog = event.target.closest && event.target.closest("dialog.whole-hand");
    if (!dialog) return;
    var solution = dialog.querySelector(".solution");
    dialog.querySelector(".whole-hand-use").disabled = !solution;
  });
  document.addEventListener("click", function (event) {
    var use = event.target.closest(".whole-hand-use");
    var close = event.target.closest(".whole-hand-close");
    if (!use && !close) return;
    var dialog = (use || close).closest("dialog");
    if (use && handSeat) {
      var solution = dialog.querySelector(".solution");
      var leftover = solution && solution.dataset.leftover ? solution.dataset.leftover.split(",") : [];
      var wentOut = handSeat.querySelector("input[name=went_out]");
      if (wentOut.checked) wentOut.checked = false;
      var typed = handSeat.querySelector('input[name^="points_"]');
      if (typed) typed.value = "";
      ck.setCards(handSeat, leftover);
    }
    dialog.close();
  });
  // A pile laid out: its Save at the top of the answer, and the answer in sight.
  document.addEventListener("htmx:after:swap", function () {
    var result = document.getElementById("pile-result");
    var save = result && result.querySelector(".pile-save-button");
    if (!save) return;
    result.scrollTop = 0;
    save.scrollIntoView({ block: "nearest" });
  });
  document.addEventListener("htmx:after:settle", function (event) {
    var dialog = event.target.closest && event.target.closest("dialog.whole-hand");
    if (dialog && dialog.dataset.focusFirst) { delete dialog.dataset.focusFirst; focusFirstCard(dialog); }
  });
})();
