"""`make mutation`: deliberately break app/ one small change at a time (mutmut) and print,
per package, the share of those mutants the fast suite kills, listing each survivor.

    python scripts/mutation.py               # a sample of every package's mutants
    python scripts/mutation.py rules live    # some of the packages
    python scripts/mutation.py --report      # the figures from the runs so far, no new run
    python scripts/mutation.py --all rules   # retry the package's mutants, killed ones too

app/ gives some 7,400 mutants and a surviving one costs every test that reaches its
function, so trying them all takes days on two cores. By default each package is judged on
a sample of MUTATION_SAMPLE mutants (40: about an hour for all four packages), the same ones
on every run (the first by a hash of their names; a bigger sample holds the smaller one),
and the figure is printed with its 95% interval; MUTATION_SAMPLE=all tries every mutant.
Not part of `make test` (MUTATION_JOBS=3 mutants at once by default: their tests wait on
servers, sockets and PostgreSQL as much as they compute).

A survivor no test can kill (an equivalent mutant: the program behaves the same) is listed in
docs/DEVELOPING.md as "- `NAME` (`changed text`): why", the text being a piece of a line the mutant
adds or removes. It is then left out of its package's share, as mutation scores are usually
given, and not retried. The text is checked against the mutant's change (`mutmut show`) on
every run, so an entry left over after the code changed counts as a survivor again.

Results are kept in mutants/: a second run retries only the chosen mutants not killed yet
(survivors, and those not tried), since a new test cannot bring a killed one back to life
(after changing app/ code, `--all` tries them afresh). `make mutation` runs this under
scripts/with-postgres.sh, so the PostgreSQL tests (the only ones reaching app/live/postgres.py)
count; run alone without TEST_POSTGRES_URL, they are skipped (CI is unset for mutmut).
docs/DEVELOPING.md gives the latest figures and explains each survivor left alone.
"""

import fnmatch
import hashlib
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where the equivalent survivors are explained (and the latest figures given).
EXPLAINED_IN = "docs/DEVELOPING.md"
EXPLANATIONS = ROOT / EXPLAINED_IN
MUTMUT = [sys.executable, "-m", "mutmut"]

# Mutant names are module.function paths; each package is a set of name patterns.
PACKAGES = {
    "rules": ["app.rules.*"],
    "service": ["app.games.*", "app.tables.*", "app.exports.*"],
    "web": [
        *(f"app.web.{module}.*" for module in ("pages", "forms", "api", "piles", "chart")),
        *(f"app.web.{module}.*" for module in ("table_pages", "tables_api", "remembered")),
        *(f"app.web.{module}.*" for module in ("rendering", "deps", "errors", "schemas")),
        "app.main.*",
    ],
    "live": ["app.live.*", "app.web.stream.*"],
}
KILLED = {"killed", "timeout", "caught by type check"}
GOAL = 90.0
DEFAULT_SAMPLE = 40

# Makes mutants/ (a mutated copy of app/ beside the tests) without running any test, so
# that the mutants can be listed and sampled before the first run.
GENERATE = """
from pathlib import Path
import mutmut.__main__ as m
m.set_mutant_under_test("mutant_generation")
Path("mutants").mkdir(exist_ok=True)
m.copy_src_dir()
m.copy_also_copy_files()
m.setup_source_paths()
m.store_lines_covered_by_tests()
m.create_mutants(int({jobs!r}))
"""


# "- `app.module.x_function__mutmut_7` (`the changed text`): why", in docs/DEVELOPING.md.
EQUIVALENT_ENTRY = re.compile(r"^- `(app\.[^`]+__mutmut_\d+)` \(`([^`]+)`\): \S", re.MULTILINE)


def listed_equivalents() -> dict[str, str]:
    """The survivors docs/DEVELOPING.md explains as equivalent, each with the text of its change."""
    explained = EXPLANATIONS.read_text(encoding="utf-8")
    return dict(EQUIVALENT_ENTRY.findall(explained))


def show_mutant(name: str) -> str:
    """`mutmut show NAME`: the mutant's status and its change, as a diff."""
    shown = subprocess.run(
        [*MUTMUT, "show", name], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return shown.stdout


def still_equivalent(listed: dict[str, str], statuses: dict[str, str]) -> set[str]:
    """The listed mutants that survived and whose change is still the one explained."""
    survivors = [name for name in listed if statuses.get(name) == "survived"]

    def changed_lines(name: str) -> str:
        lines = show_mutant(name).splitlines()[3:]  # after the status and the file names
        return "\n".join(line for line in lines if line[:1] in "+-")

    with ThreadPoolExecutor(max_workers=2) as pool:
        changes = dict(zip(survivors, pool.map(changed_lines, survivors), strict=True))
    confirmed = {name for name in survivors if listed[name] in changes[name]}
    for name in sorted(set(survivors) - confirmed):
        print(f"note: {EXPLAINED_IN} explains {name} as a change it no longer makes: a survivor")
    return confirmed


def mutant_statuses() -> dict[str, str]:
    """Every mutant made so far and what became of it ("not checked" when not tried)."""
    done = subprocess.run(
        [*MUTMUT, "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    statuses = {}
    for line in done.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name.startswith("app."):
            statuses[name] = status
    return statuses


def in_package(name: str, package: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in PACKAGES[package])


def sample_size() -> int | None:
    """How many mutants judge each package (None: all of them)."""
    text = os.environ.get("MUTATION_SAMPLE", str(DEFAULT_SAMPLE)).strip().lower()
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise SystemExit(f"MUTATION_SAMPLE must be a whole number above 0 or 'all', not {text!r}")
    return int(text)


def chosen_mutants(names: list[str], package: str, size: int | None) -> list[str]:
    """The package's mutants that judge it: the same sample on every run."""
    mine = sorted(name for name in names if in_package(name, package))
    if size is None:
        return mine
    return sorted(mine, key=lambda name: hashlib.sha256(name.encode()).hexdigest())[:size]


def interval(killed: int, tried: int) -> tuple[float, float]:
    """95% Wilson interval of the share killed, in percent."""
    if not tried:
        return 0.0, 100.0
    z = 1.96
    share = killed / tried
    middle = (share + z * z / (2 * tried)) / (1 + z * z / tried)
    spread = z * math.sqrt(share * (1 - share) / tried + z * z / (4 * tried * tried))
    spread /= 1 + z * z / tried
    return 100.0 * max(0.0, middle - spread), 100.0 * min(1.0, middle + spread)


def main(chosen: list[str], *, run: bool = True, retry_all: bool = False) -> int:
    unknown = [name for name in chosen if name not in PACKAGES]
    if unknown:
        print(f"unknown package {', '.join(unknown)}; choose from {', '.join(PACKAGES)}")
        return 2
    size = sample_size()
    jobs = os.environ.get("MUTATION_JOBS", "3")
    # With CI set, the PostgreSQL tests fail instead of being skipped without a server.
    environment = {name: value for name, value in os.environ.items() if name != "CI"}
    if run:
        print("--- making the mutants ---", flush=True)
        subprocess.run(
            [sys.executable, "-c", GENERATE.format(jobs=jobs)],
            cwd=ROOT,
            env=environment,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        statuses = mutant_statuses()
        equivalent = set() if retry_all else still_equivalent(listed_equivalents(), statuses)
        # mutmut retries every mutant it is named, killed or not: name only those left.
        left = [
            name
            for package in chosen
            for name in chosen_mutants(list(statuses), package, size)
            if retry_all or (statuses[name] not in KILLED and name not in equivalent)
        ]
        print(f"--- trying {len(left)} mutants of {', '.join(chosen)} ---", flush=True)
        if left:
            subprocess.run(
                [*MUTMUT, "run", "--max-children", jobs, *left],
                cwd=ROOT,
                env=environment,
                check=True,
            )
    statuses = mutant_statuses()
    equivalent = still_equivalent(listed_equivalents(), statuses)
    below_goal = False
    print()
    for package in chosen:
        judged = chosen_mutants(list(statuses), package, size)
        mine = sum(in_package(name, package) for name in statuses)
        tried = {name: statuses[name] for name in judged if statuses[name] != "not checked"}
        same = sorted(name for name in tried if name in equivalent)
        counted = len(tried) - len(same)
        killed = sum(status in KILLED for status in tried.values())
        share = 100.0 * killed / counted if counted else 0.0
        below_goal |= share < GOAL or len(tried) < len(judged)
        low, high = interval(killed, counted)
        sampled = "mutants" if size is None else f"sampled mutants (of {mine})"
        print(
            f"{package}: {killed} of {counted} {sampled} killed ({share:.1f}%"
            + ("" if size is None else f"; 95% interval {low:.1f}% to {high:.1f}%")
            + f"), {len(tried)} tried, {len(same)} equivalent left out"
        )
        for name, status in sorted(tried.items()):
            if status not in KILLED and name not in equivalent:
                print(f"    survived ({status}): {name}")
        for name in same:
            print(f"    equivalent ({EXPLAINED_IN} says why): {name}")
        if len(tried) < len(judged):
            print(f"    not yet tried: {len(judged) - len(tried)}")
    print("\n`python -m mutmut show NAME` prints a survivor's change.")
    return 1 if below_goal else 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    report_only = "--report" in arguments
    names = [word for word in arguments if word not in ("--report", "--all")]
    sys.exit(main(names or list(PACKAGES), run=not report_only, retry_all="--all" in arguments))
