"""`make mutation`: deliberately break app/ one small change at a time (mutmut) and print,
per package, the share of those mutants the fast suite kills, listing each survivor.

    python scripts/mutation.py               # every package
    python scripts/mutation.py rules live    # some of them
    python scripts/mutation.py --report      # the figures from the runs so far, no new run
    python scripts/mutation.py --all rules   # retry every mutant of rules, killed ones too

Not part of `make test`: it takes a long while on two cores (MUTATION_JOBS=2 by default).
Results are kept in mutants/: a second run of a package retries only the mutants not killed
yet (survivors, and those not tried), since a new test cannot bring a killed one back to
life (after changing app/ code, `--all` tries the package afresh). The
PostgreSQL runs are skipped (CI is unset for mutmut: TEST_POSTGRES_URL alone brings them in).
README.md gives the latest figures and explains each survivor left alone.
"""

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTMUT = [sys.executable, "-m", "mutmut"]

# Mutant names are module.function paths; each package is a set of name patterns.
PACKAGES = {
    "rules": ["app.rules.*"],
    "service": ["app.games.*", "app.tables.*", "app.exports.*"],
    "web": [
        *(f"app.web.{module}.*" for module in ("pages", "forms", "api", "piles", "chart")),
        *(f"app.web.{module}.*" for module in ("table_pages", "tables_api", "table_cookie")),
        "app.main.*",
    ],
    "live": ["app.live.*", "app.web.stream.*"],
}
KILLED = {"killed", "timeout", "caught by type check"}
GOAL = 90.0


def mutant_statuses() -> dict[str, str]:
    """Every mutant tried so far and what became of it."""
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


def main(chosen: list[str], *, run: bool = True, retry_all: bool = False) -> int:
    unknown = [name for name in chosen if name not in PACKAGES]
    if unknown:
        print(f"unknown package {', '.join(unknown)}; choose from {', '.join(PACKAGES)}")
        return 2
    jobs = os.environ.get("MUTATION_JOBS", "2")
    # With CI set, the PostgreSQL tests fail instead of being skipped without a server.
    environment = {name: value for name, value in os.environ.items() if name != "CI"}
    for package in chosen if run else []:
        print(f"--- mutating {package} ---", flush=True)
        # mutmut retries every mutant it is named, killed or not: name only those left.
        known = mutant_statuses() if (ROOT / "mutants").is_dir() and not retry_all else {}
        mine = {name: status for name, status in known.items() if in_package(name, package)}
        tried = [status for status in mine.values() if status != "not checked"]
        names = PACKAGES[package]
        if tried:
            names = sorted(name for name, status in mine.items() if status not in KILLED)
            if not names:
                print("every mutant is killed already")
                continue
        subprocess.run(
            [*MUTMUT, "run", "--max-children", jobs, *names], cwd=ROOT, env=environment, check=True
        )
    statuses = mutant_statuses()
    below_goal = False
    print()
    for package in chosen:
        mine = {name: status for name, status in statuses.items() if in_package(name, package)}
        tried = {name: status for name, status in mine.items() if status != "not checked"}
        killed = sum(status in KILLED for status in tried.values())
        share = 100.0 * killed / len(tried) if tried else 0.0
        below_goal |= share < GOAL
        print(f"{package}: {killed} of {len(tried)} mutants killed ({share:.1f}%)")
        for name, status in sorted(tried.items()):
            if status not in KILLED:
                print(f"    survived ({status}): {name}")
        if len(tried) < len(mine):
            print(f"    not yet tried: {len(mine) - len(tried)}")
    print("\n`python -m mutmut show NAME` prints a survivor's change.")
    return 1 if below_goal else 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    report_only = "--report" in arguments
    names = [word for word in arguments if word not in ("--report", "--all")]
    sys.exit(main(names or list(PACKAGES), run=not report_only, retry_all="--all" in arguments))
