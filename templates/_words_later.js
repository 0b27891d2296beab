{#- The words of the scripts app.js fetches later (round-entry.js, kept-rounds.js, picker.js), in
one language: served as /static/words-{lang}.js (app/web/languages.py), loaded just before
those scripts (static/app.js, forget.html, hand.html, pile.html) and kept by the service worker
with the static files, so the game page's first load carries only app.js's own words
(templates/_words.html). static/app.js's word() looks in the page's words, then in these. -#}
{%- set k = {"round": "%(round)s", "name": "%(name)s", "time": "%(time)s", "points": "%(points)s", "num": "%(num)s", "rank": "%(rank)s"} -%}
{%- set words = {
  "S": _("%(rank)s of spades", **k),
  "H": _("%(rank)s of hearts", **k),
  "C": _("%(rank)s of clubs", **k),
  "D": _("%(rank)s of diamonds", **k),
  "R": _("%(rank)s of stars", **k),
  "jokers": [
    ngettext("The decks hold only %(num)s joker, and it is entered already.", "The decks hold only %(num)s jokers, and all of them are entered already.", 1, **k),
    ngettext("The decks hold only %(num)s joker, and it is entered already.", "The decks hold only %(num)s jokers, and all of them are entered already.", 2, **k)],
  "many": [
    ngettext("%(name)s cannot have more than %(num)s card left: %(num)s was dealt this round.", "%(name)s cannot have more than %(num)s cards left: %(num)s were dealt this round.", 1, **k),
    ngettext("%(name)s cannot have more than %(num)s card left: %(num)s was dealt this round.", "%(name)s cannot have more than %(num)s cards left: %(num)s were dealt this round.", 2, **k)],
  "ranks": [
    ngettext("The decks hold only %(num)s card of each rank, and the %(name)s card is entered already.", "The decks hold only %(num)s cards of each rank, and all the %(name)s cards are entered already.", 1, **k),
    ngettext("The decks hold only %(num)s card of each rank, and the %(name)s card is entered already.", "The decks hold only %(num)s cards of each rank, and all the %(name)s cards are entered already.", 2, **k)],
  "kept": _("Round %(round)s is kept on this phone and will be sent when the connection is back", **k),
  "unkept": _("Round %(round)s is not saved, and this phone could not keep it: every tap is still here. Try again when the connection is back.", **k),
  "unsent": _("not sent yet"),
  "unsentT": _("(not sent yet)"),
  "sent": _("All rounds sent"),
  "look": _("This round was kept on this phone and needs a look before it is sent; the rounds after it wait."),
  "cannot": _("The rounds kept on this phone cannot be sent: the server no longer takes them for this game (its link replaced, or the game deleted or over)."),
  "letGo": _("Let the kept rounds go"),
  "clear": _("Clear"),
  "backR": _("Round %(round)s's taps from %(time)s are back.", **k),
  "backR0": _("Round %(round)s's taps are back.", **k),
  "backT": _("The tie-break round's taps from %(time)s are back.", **k),
  "backT0": _("The tie-break round's taps are back."),
  "saving": _("Saving…"),
  "again": _("Try again"),
  "err": _("Round %(round)s is not saved: the server had a problem. Every tap is kept on this phone.", **k),
  "err0": _("Round %(round)s is not saved: the server could not be reached. Every tap is kept on this phone.", **k),
  "saved": _("Round %(round)s saved", **k),
  "other": _("Another phone saved round %(round)s a moment ago. What it saved is shown beside each player; your taps are kept here, not saved.", **k),
  "other0": _("Another phone saved round %(round)s a moment ago. What it saved is shown beside each player.", **k),
  "byOut": _("Saved by the other phone: went out"),
  "byPts": _("Saved by the other phone: %(points)s", **k),
  "hand": _("%(name)s's whole hand", **k),
  "use": _("Use for %(name)s", **k),
} -%}
self.crownkeeperWords = {{ words | script_json }};
