// Crownkeeper's small script. The card picker answers a tap at once, without a round trip;
// the server checks every limit again when the round is saved. Pages work without it.
(function () {
  "use strict";

  function keyFor(seat, code) {
    return seat.querySelector('.key[data-code="' + code + '"]');
  }

  function cardsOf(seat) {
    var value = seat.querySelector('input[type=hidden][name^="cards_"]').value;
    return value ? value.split(",") : [];
  }

  function countAcrossTable(form, code) {
    var count = 0;
    form.querySelectorAll("fieldset.seat:not(.out)").forEach(function (seat) {
      cardsOf(seat).forEach(function (card) { if (card.toUpperCase() === code) count += 1; });
    });
    return count;
  }

  function showSeatTotal(seat, cards) {
    var total = 0;
    cards.forEach(function (code) {
      var key = keyFor(seat, code.toUpperCase());
      total += key ? Number(key.dataset.points) : 0;
    });
    seat.querySelector(".seat-total").textContent = total;
  }

  function drawChips(seat, cards) {
    var chips = seat.querySelector(".chips");
    chips.replaceChildren();
    if (!cards.length) {
      var none = document.createElement("span");
      none.className = "no-cards";
      none.textContent = "no cards";
      chips.append(none);
    }
    cards.forEach(function (code, index) {
      var key = keyFor(seat, code.toUpperCase());
      var chip = document.createElement("button");
      chip.type = "submit";
      chip.name = "remove";
      chip.value = seat.dataset.seat + ":" + index;
      chip.className = "chip" + (code.toUpperCase() === "JOKER" ? " joker" : "");
      chip.textContent = key ? key.firstChild.textContent : code;
      chip.setAttribute("aria-label", "remove " + (key ? key.dataset.name : code));
      chips.append(chip);
    });
  }

  function setCards(seat, cards) {
    seat.querySelector('input[type=hidden][name^="cards_"]').value = cards.join(",");
    drawChips(seat, cards);
    showSeatTotal(seat, cards);
  }

  function say(element, message) {
    if (element) element.textContent = message;
  }

  function tap(button) {
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
      say(seatError, name + " cannot have more than " + dealt + " cards left: " + dealt + " were dealt this round.");
      return;
    }
    if (code === "JOKER" && countAcrossTable(form, code) >= Number(form.dataset.jokers)) {
      say(tableError, "The decks hold only " + form.dataset.jokers + " jokers, and all of them are entered already.");
      return;
    }
    if (code !== "JOKER" && countAcrossTable(form, code) >= Number(form.dataset.rankCopies)) {
      say(tableError, "The decks hold only " + form.dataset.rankCopies + " cards of each rank, and all the " + button.dataset.name + " cards are entered already.");
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

  document.addEventListener("change", function (event) {
    if (event.target.name !== "went_out") return;
    var form = event.target.form;
    form.querySelectorAll("fieldset.seat").forEach(function (seat) {
      seat.classList.toggle("out", seat.dataset.seat === event.target.value);
      var cards = cardsOf(seat);
      if (seat.classList.contains("out")) seat.querySelector(".seat-total").textContent = 0;
      else showSeatTotal(seat, cards);
    });
  });

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
})();
