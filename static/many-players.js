// Round entry with 8 to 14 players (loaded only for such games). Two seats show their keypads:
// the one being tapped and the next one; every other seat folds to one line saying what it
// holds. Tapping a key of the next seat moves on (the seat before folds, and the page
// scrolls by what it lost, so the keys stay under the finger): no extra tap per seat.
(function () {
  "use strict";
  var ck = window.crownkeeper;

  function seats(form) {
    return Array.from(form.querySelectorAll("fieldset.seat"));
  }
  function isOut(seat) {
    return seat.querySelector("input[name=went_out]").checked;
  }
  function seatSummary(seat) {
    if (isOut(seat)) return ck.word("out");
    var zero = seat.querySelector('input[name^="zero_"]');
    if (zero && zero.checked) return ck.word("zero");
    var typed = seat.querySelector('input[name^="points_"]');
    if (typed && typed.value) return ck.words("pts", Number(typed.value), { num: typed.value });
    var chips = Array.from(seat.querySelectorAll(".chips .chip"), function (chip) { return chip.textContent; });
    return chips.length ? ck.word("change", { cards: chips.join(" ") }) : ck.word("add");
  }
  // Where to start: a seat with a message, else the first one still to enter.
  function firstToEnter(form) {
    var all = seats(form);
    return all.find(function (seat) { return seat.querySelector(".error:not(:empty)"); }) ||
      all.find(function (seat) { return !isOut(seat) && !seat.querySelector(".chips .chip"); }) || all[0];
  }
  function foldSeats(form, active) {
    var all = seats(form);
    if (isOut(active)) active = all.slice(all.indexOf(active) + 1).find(function (s) { return !isOut(s); }) || active;
    var next = all.slice(all.indexOf(active) + 1).find(function (s) { return !isOut(s); });
    form.dataset.active = active.dataset.seat;
    all.forEach(function (seat) {
      var line = seat.querySelector(".seat-unfold");
      if (!line) {
        line = document.createElement("button");
        line.type = "button";
        line.className = "seat-unfold quiet";
        seat.querySelector(".went-out").before(line);
      }
      var open = seat === active || seat === next;
      seat.classList.toggle("folded", !open);
      line.setAttribute("aria-expanded", String(open));
      line.textContent = ck.word("seat", { name: seat.querySelector(".seat-name").textContent, what: seatSummary(seat) });
    });
  }
  // Fold around seat, keeping seat where it is on the screen.
  function moveTo(form, seat) {
    var before = seat.getBoundingClientRect().top;
    foldSeats(form, seat);
    window.scrollBy(0, seat.getBoundingClientRect().top - before);
  }
  function foldAll() {
    document.querySelectorAll("form.entry[data-fold]").forEach(function (form) {
      // Already folded once: keep the seat being tapped (a live update must not move it).
      var active = form.dataset.active && form.querySelector('fieldset.seat[data-seat="' + form.dataset.active + '"]');
      foldSeats(form, active || firstToEnter(form));
    });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("form.entry[data-fold] fieldset.seat button");
    if (!button) return;
    var seat = button.closest("fieldset.seat");
    if (seat.dataset.seat !== button.form.dataset.active) moveTo(button.form, seat);
    if (button.classList.contains("seat-unfold")) {
      var key = seat.querySelector(".key");
      if (key) key.focus();
    }
  });
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    if (!form || !form.hasAttribute("data-fold")) return;
    // "Laid everything down: 0" finishes the seat: on to the next seat's keys, as a key does.
    if (event.target.name.indexOf("zero_") === 0 && event.target.checked) {
      var done = event.target.closest("fieldset.seat"), all = seats(form);
      moveTo(form, all.slice(all.indexOf(done) + 1).find(function (s) { return !isOut(s); }) || done);
      return;
    }
    if (event.target.name !== "went_out") return;
    var seat = event.target.closest("fieldset.seat");
    foldSeats(form, seat.dataset.seat === form.dataset.active ? seat : form.querySelector('fieldset.seat[data-seat="' + form.dataset.active + '"]'));
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", foldAll);
  else foldAll();
  document.addEventListener("htmx:after:swap", foldAll);
})();
