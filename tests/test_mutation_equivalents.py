"""`make mutation` leaves out of its figures only the survivors docs/DEVELOPING.md explains as
equivalent: each entry must be one the script reads (name, changed text, reason)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mutation_script():
    spec = importlib.util.spec_from_file_location("mutation", ROOT / "scripts" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def equivalent_section() -> list[str]:
    """The list under "Equivalent survivors" in docs/DEVELOPING.md, one entry a line."""
    lines = (ROOT / "docs" / "DEVELOPING.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Equivalent survivors"))
    entries = []
    for line in lines[start + 1 :]:
        if entries and not line.strip():
            break
        if line.startswith("- "):
            entries.append(line)
    return entries


def test_every_equivalent_survivor_explained_is_read_with_its_change_and_reason():
    entries = equivalent_section()
    assert entries, "docs/DEVELOPING.md lists no equivalent survivors"
    listed = mutation_script().listed_equivalents()
    for entry in entries:
        name = entry.split("`")[1]
        assert name in listed, f"make mutation cannot read this entry: {entry[:80]}"
        assert listed[name] in entry, entry[:80]
    assert len(listed) == len(entries), "an entry outside the list reads as equivalent"


def test_a_mutant_counts_as_equivalent_only_while_it_still_makes_the_change_explained():
    script = mutation_script()
    listed = {"app.web.pages.x_render__mutmut_34": '"NO-STORE"'}
    shown = {
        "app.web.pages.x_render__mutmut_34": "# app.web.pages.x_render__mutmut_34: survived\n"
        "--- app/web/pages.py\n+++ app/web/pages.py\n@@ -1 +1 @@\n"
        '-    response.headers["Cache-Control"] = "no-store"\n'
        '+    response.headers["Cache-Control"] = "NO-STORE"\n'
    }
    script.show_mutant = shown.get
    assert script.still_equivalent(listed, {"app.web.pages.x_render__mutmut_34": "survived"}) == {
        "app.web.pages.x_render__mutmut_34"
    }
    # Killed by now: nothing to leave out.
    assert not script.still_equivalent(listed, {"app.web.pages.x_render__mutmut_34": "killed"})
    # The code changed and the same name is now another change: a survivor again.
    shown["app.web.pages.x_render__mutmut_34"] = shown["app.web.pages.x_render__mutmut_34"].replace(
        '"NO-STORE"', "None"
    )
    assert not script.still_equivalent(listed, {"app.web.pages.x_render__mutmut_34": "survived"})
