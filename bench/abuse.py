"""Abuse, measured on a real server (`python -m app` on 127.0.0.1), eleven parts:

1. Big bodies: four 20 MB JSON bodies at once (two with Content-Length, two chunked), the
   server's RSS before, at its peak and after, and GET /api/games/{code} times meanwhile.
2. Streams: 2,000 live streams (100 on each of 20 games) opening together, and
   GET /api/games/{code} times (p50, p99, max) while they open.
3. Held connections: the server started with its open-file limit at 1,024 (soft and hard),
   300 idle or slow connections held open, /healthz times and how much the log grew.

4. A big import: 2,000 games of 4 players and 11 rounds in one document; how long it
   takes, the server's RSS growth while it runs, and /healthz and another game's page meanwhile.
5. A big table: 500 people and 2,000 games; the scorekeeper's and the watch table page and
   GET /api/tables/{code}: size and time.
6. Exports at once: a table of 2,000 finished games exported once, then four times at once,
   with /healthz timed meanwhile.
7. Hostile imports: 8 MiB bodies of seven hostile kinds, each refusal timed with /healthz.
8. Ten imports at once of 2,000 games of 14 players among 500 names: the server's RSS
   before, at its peak and after.
9. The largest import beside saves: rounds saved to other games while it is written.
10. Table reads: every page and answer of a table of 2,000 games among 20 people and among
    500 people, both codes, any season, and the first reads after a game finished.
11. Seasons at once: sixteen clients asking new from/to seasons, other requests timed.

Run with `make bench-abuse` (or name parts: `python bench/abuse.py big_import big_table`);
it prints each figure beside its target, for docs/BENCHMARKS.md. Targets: RSS growth under
20 MB for big bodies, GET p99 under 500 ms while streams open, /healthz under 1 s with held
connections, log growth under 100 KB; the import under 30 s, growing RSS under 150 MB, with
/healthz and pages under 500 ms meanwhile; the big table's pages and answer under 1 MB, the
scorekeeper's page under 1 s; the export of 2,000 games under 2 s, and /healthz p99 under
500 ms while four run at once; hostile bodies refused in under 2 s with /healthz under
500 ms; ten imports growing RSS under 300 MB; saves beside an import all 200 under 1 s;
every table read p99 under 300 ms; other requests' p99 under 500 ms beside sixteen seasons.
"""

import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BODY_MB = 20
STREAMS = 2000
STREAM_GAMES = 20
HELD = 300
FILE_LIMIT = 1024


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


class Server:
    def __init__(self, folder: str, log_path: Path, file_limit: int | None = None, **env: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        environment = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder}/bench.db",
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "CREATE_RATE_LIMIT": "off",
            **env,
        }

        def limit_files() -> None:
            if file_limit:
                resource.setrlimit(resource.RLIMIT_NOFILE, (file_limit, file_limit))

        self.log = open(log_path, "wb")  # noqa: SIM115 - open for the server's life
        self.process = subprocess.Popen(
            [python(), "-m", "app"],
            cwd=ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=limit_files,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if self.get("/healthz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"server did not start:\n{log_path.read_text()[-2000:]}")

    def get(self, path: str, timeout: float = 10) -> tuple[int, float]:
        began = time.monotonic()
        with urllib.request.urlopen(self.base + path, timeout=timeout) as response:
            response.read()
            return response.status, (time.monotonic() - began) * 1000

    def post(self, path: str, body: dict | bytes, timeout: float = 10) -> dict:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, raw, {"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def fetch(self, path: str) -> tuple[int, float]:
        """Bytes of the answer (as sent, no compression asked for) and the time in ms."""
        began = time.monotonic()
        with urllib.request.urlopen(self.base + path, timeout=60) as response:
            size = len(response.read())
        return size, (time.monotonic() - began) * 1000

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def _time_gets(base: str, path: str, done, results) -> None:
    times: list[float] = []
    failures = 0
    while not done.is_set():
        began = time.monotonic()
        try:
            with urllib.request.urlopen(base + path, timeout=10) as response:
                response.read()
                failures += response.status != 200
            times.append((time.monotonic() - began) * 1000)
        except OSError:
            failures += 1
        time.sleep(0.02)
    results.put((times, failures))


class Timer:
    """GET a path again and again until stopped, from a process of its own (so the client
    work of the other parts does not slow the measuring); the times in ms."""

    def __init__(self, server: Server, path: str) -> None:
        context = multiprocessing.get_context("fork")
        self.done = context.Event()
        self.results = context.Queue()
        self.process = context.Process(
            target=_time_gets, args=(server.base, path, self.done, self.results), daemon=True
        )

    def start(self) -> None:
        self.process.start()

    def stop(self) -> str:
        self.done.set()
        t, failures = self.results.get(timeout=60)
        self.process.join()
        self.times = t
        return (
            f"n={len(t)} p50 {percentile(t, 0.5):.1f} ms, p99 {percentile(t, 0.99):.1f} ms, "
            f"max {max(t, default=0):.1f} ms, failed {failures}"
        )


def big_bodies(folder: str) -> None:
    server = Server(folder, Path(folder) / "bodies.log")
    try:
        code = server.post("/api/games", {"players": ["Ann", "Ben", "Cy"]})["code"]
        for _ in range(20):
            server.get(f"/api/games/{code}")
        before = server.rss_mb()
        peak = before
        statuses: list[str] = []

        def send(chunked: bool) -> None:
            size = BODY_MB * 1024 * 1024
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            head = "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            head += (
                "Transfer-Encoding: chunked\r\n\r\n"
                if chunked
                else f"Content-Length: {size}\r\n\r\n"
            )
            block = b"[" * 65536
            try:
                sock.sendall(head.encode())
                for _ in range(size // len(block)):
                    sock.sendall(b"10000\r\n" + block + b"\r\n" if chunked else block)
            except OSError:
                pass
            try:
                statuses.append(sock.recv(200).split(b"\r\n")[0].decode())
            except OSError as error:
                statuses.append(repr(error))
            sock.close()

        timer = Timer(server, f"/api/games/{code}")
        timer.start()
        senders = [threading.Thread(target=send, args=(i % 2 == 1,)) for i in range(4)]
        for sender in senders:
            sender.start()
        while any(s.is_alive() for s in senders):
            peak = max(peak, server.rss_mb())
            time.sleep(0.01)
        time.sleep(0.5)
        after = server.rss_mb()
        times = timer.stop()
        print(f"Big bodies: 4 x {BODY_MB} MB JSON at once (2 with Content-Length, 2 chunked)")
        print(f"  answers: {', '.join(sorted(statuses))}")
        print(
            f"  server RSS: {before:.1f} MB before, peak {peak:.1f} MB, {after:.1f} MB after "
            f"(grew {peak - before:.1f} MB; target < 20 MB)"
        )
        print(f"  GET /api/games/{{code}} meanwhile: {times}")
    finally:
        server.stop()


async def open_stream(port: int, code: str, results: dict[str, int], gate: asyncio.Event):
    await gate.wait()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        results["connect failed"] = results.get("connect failed", 0) + 1
        return None
    writer.write(f"GET /g/{code}/events HTTP/1.1\r\nHost: x\r\nHX-Request: true\r\n\r\n".encode())
    await writer.drain()
    line = await reader.readline()
    status = line.split(b" ")[1].decode() if line.count(b" ") >= 2 else "closed"
    results[status] = results.get(status, 0) + 1
    return writer


def many_streams(folder: str) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = Server(folder, Path(folder) / "streams.log")
    try:
        codes = [
            server.post("/api/games", {"players": ["Ann", "Ben", "Cy"]})["watch_code"]
            for _ in range(STREAM_GAMES)
        ]
        keeper = server.post("/api/games", {"players": ["Ann", "Ben"]})["code"]
        for _ in range(20):
            server.get(f"/api/games/{keeper}")
        before = server.rss_mb()

        async def run() -> tuple[dict[str, int], str, float]:
            results: dict[str, int] = {}
            gate = asyncio.Event()
            tasks = [
                asyncio.create_task(
                    open_stream(server.port, codes[i % STREAM_GAMES], results, gate)
                )
                for i in range(STREAMS)
            ]
            began = time.monotonic()
            gate.set()
            writers = await asyncio.gather(*tasks)
            opened_in = time.monotonic() - began
            await asyncio.sleep(2)
            times = timer.stop()
            rss = server.rss_mb()
            for writer in writers:
                if writer is not None:
                    writer.close()
            return results, times + f"; streams answered in {opened_in:.1f} s", rss

        timer = Timer(server, f"/api/games/{keeper}")
        timer.start()
        results, times, rss = asyncio.run(run())
        print(
            f"Streams: {STREAMS} opening together "
            f"({STREAMS // STREAM_GAMES} on each of {STREAM_GAMES} games)"
        )
        print(f"  answers: {', '.join(f'{k}: {v}' for k, v in sorted(results.items()))}")
        print(f"  GET /api/games/{{code}} while they open: {times} (target p99 < 500 ms)")
        print(f"  server RSS: {before:.1f} MB before, {rss:.1f} MB with the streams open")
    finally:
        server.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def held_connections(folder: str) -> None:
    log_path = Path(folder) / "held.log"
    server = Server(folder, log_path, file_limit=FILE_LIMIT)
    try:
        time.sleep(0.5)
        log_before = log_path.stat().st_size
        held = []
        for i in range(HELD):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if i % 2:  # slow: a request that never finishes its headers
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            else:  # idle: one request answered, then the connection kept alive and silent
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                sock.recv(4096)
            held.append(sock)
        times = []
        began = time.monotonic()
        while time.monotonic() - began < 30:
            try:
                times.append(server.get("/healthz", timeout=5)[1])
            except OSError:
                times.append(5000.0)
            for sock in held[1::2][:20]:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X-Slow: 1\r\n")
            time.sleep(0.25)
        still_open = {"idle": 0, "slow": 0}
        for i, sock in enumerate(held):
            kind = "slow" if i % 2 else "idle"
            sock.setblocking(False)
            try:
                while sock.recv(65536):  # the rest of an answer, then b"" once closed
                    pass
            except BlockingIOError:
                still_open[kind] += 1  # nothing more to read, and not closed
            except OSError:
                pass
            sock.close()
        grown = log_path.stat().st_size - log_before
        print(
            f"Held connections: open-file limit {FILE_LIMIT} (soft and hard), {HELD} idle or slow "
            "connections held for 30 s"
        )
        print(
            f"  /healthz: n={len(times)} p50 {percentile(times, 0.5):.1f} ms, "
            f"max {max(times):.1f} ms (target < 1000 ms)"
        )
        print(
            f"  still open after 30 s: idle keep-alive {still_open['idle']}/{HELD // 2}, "
            f"slow {still_open['slow']}/{HELD // 2}"
        )
        print(f"  log grew by {grown} B (target < 100 KB)")
    finally:
        server.stop()


IMPORT_GAMES = 2000
IMPORT_PLAYERS = 4
FAMILY = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"]
BIG_TABLE_PEOPLE = 500
WILD = {n: str(n + 2) if n + 2 <= 10 else "JQK"[n - 9] for n in range(1, 12)}


def recorded_games(count: int, names_for) -> bytes:
    """An export of count finished games of 11 rounds (the first seat goes out each round,
    the others keep 20 points, a total every round can leave)."""
    games = []
    for number in range(count):
        players = names_for(number)
        games.append(
            {
                "format": 1,
                "id": f"bench-{number}",
                "players": players,
                "first_dealer": 0,
                "created_at": f"2025-{1 + number % 12:02d}-{1 + number % 28:02d}T19:00:00+00:00",
                "rounds": [
                    {
                        "number": n,
                        "cards_dealt": n + 2,
                        "wild_rank": WILD[n],
                        "dealer": (n - 1) % len(players),
                        "results": [{"points": 0, "went_out": True}]
                        + [{"points": 20} for _ in players[1:]],
                    }
                    for n in range(1, 12)
                ],
            }
        )
    return json.dumps({"format": 1, "games": games}).encode()


def big_import(folder: str) -> None:
    server = Server(folder, Path(folder) / "import.log")
    try:
        other = server.post("/api/games", {"players": ["Ann", "Ben", "Cy"]})["code"]
        table = server.post("/api/tables", {"name": "The Bench"})["code"]
        document = recorded_games(
            IMPORT_GAMES,
            lambda n: [FAMILY[(n + i) % len(FAMILY)] for i in range(IMPORT_PLAYERS)],
        )
        for _ in range(20):
            server.get("/healthz")
            server.get(f"/g/{other}")
        before = server.rss_mb()
        peak = before
        health, page = Timer(server, "/healthz"), Timer(server, f"/g/{other}")
        health.start()
        page.start()
        answer: dict = {}

        def send() -> None:
            answer.update(server.post(f"/api/tables/{table}/import", document, timeout=300))

        began = time.monotonic()
        sender = threading.Thread(target=send)
        sender.start()
        while sender.is_alive():
            peak = max(peak, server.rss_mb())
            time.sleep(0.05)
        took = time.monotonic() - began
        health_times, page_times = health.stop(), page.stop()
        worst = max(max(health.times, default=0), max(page.times, default=0))
        print(
            f"Big import: {IMPORT_GAMES} games of {IMPORT_PLAYERS} players and 11 rounds "
            f"({len(document) / 1e6:.2f} MB of JSON)"
        )
        print(f"  imported {answer.get('imported')} games in {took:.1f} s (target < 30 s)")
        print(
            f"  server RSS: {before:.1f} MB before, peak {peak:.1f} MB "
            f"(grew {peak - before:.1f} MB; target < 150 MB)"
        )
        print(f"  GET /healthz meanwhile: {health_times}")
        print(f"  GET /g/{{code}} (another game) meanwhile: {page_times}")
        verdict = took < 30 and peak - before < 150 and worst < 500
        print(
            f"  {'PASS' if verdict else 'FAIL'}: slowest answer meanwhile {worst:.1f} ms "
            "(target < 500 ms)"
        )
    finally:
        server.stop()


def big_table(folder: str) -> None:
    server = Server(folder, Path(folder) / "table.log")
    try:
        made = server.post("/api/tables", {"name": "The Big Family"})
        keeper, watch = made["code"], made["watch_code"]
        people = [f"Person {n:03d}" for n in range(BIG_TABLE_PEOPLE)]
        document = recorded_games(
            IMPORT_GAMES,
            lambda n: [people[(n * 7 + i * 131) % len(people)] for i in range(IMPORT_PLAYERS)],
        )
        server.post(f"/api/tables/{keeper}/import", document, timeout=300)
        print(f"Big table: {BIG_TABLE_PEOPLE} people, {IMPORT_GAMES} games")
        verdicts = []
        for label, path, most_ms in (
            ("scorekeeper's table page", f"/t/{keeper}", 1000.0),
            ("watch table page", f"/t/{watch}", None),
            ("GET /api/tables/{code}", f"/api/tables/{keeper}", None),
        ):
            runs = [server.fetch(path) for _ in range(10)]
            size = runs[0][0]
            times = [ms for _, ms in runs]
            within = size < 1_000_000 and (most_ms is None or max(times) < most_ms)
            verdicts.append(within)
            print(
                f"  {label:<26} {size / 1000:8.1f} KB (target < 1000 KB), "
                f"p50 {percentile(times, 0.5):.0f} ms, max {max(times):.0f} ms"
                + (f" (target < {most_ms:.0f} ms)" if most_ms else "")
                + f"  {'PASS' if within else 'FAIL'}"
            )
    finally:
        server.stop()


EIGHT_MIB = 8 * 1024 * 1024
LARGEST_PLAYERS = 14


def hostile_body(kind: str) -> bytes:
    """An 8 MiB import body of one hostile kind (as tests/imports/test_import_bodies.py sends)."""
    bodies = {
        "unterminated string": lambda: b'{"format": 1, "games": ["' + b"a" * EIGHT_MIB,
        "quote and escaped quotes": lambda: b'"' + b'\\"' * (EIGHT_MIB // 2),
        "runs of escapes": lambda: b'{"format": 1, "name": "' + b"\\\\" * (EIGHT_MIB // 2),
        "deep nesting": lambda: b"[" * EIGHT_MIB,
        "a million empty games": lambda: (
            b'{"format": 1, "games": [' + b"{}," * (EIGHT_MIB // 3) + b"{}]}"
        ),
        "huge number": lambda: b'{"format": 1, "games": [], "name": ' + b"9" * EIGHT_MIB + b"}",
        "huge float": lambda: (
            b'{"format": 1, "games": [], "name": 0.' + b"9" * EIGHT_MIB + b"e99999}"
        ),
    }
    return bodies[kind]()


HOSTILE_KINDS = (
    "unterminated string",
    "quote and escaped quotes",
    "runs of escapes",
    "deep nesting",
    "a million empty games",
    "huge number",
    "huge float",
)


def post_status(server: Server, path: str, body: bytes, timeout: float = 300) -> int:
    """The status of a POST (4xx and 5xx included)."""
    request = urllib.request.Request(server.base + path, body, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        error.read()
        return error.code


def hostile_imports(folder: str) -> None:
    server = Server(folder, Path(folder) / "hostile.log", IMPORT_MAX_BYTES=str(EIGHT_MIB + 64))
    try:
        table = server.post("/api/tables", {"name": "The Bench"})["code"]
        print(
            "Hostile 8 MiB import bodies, one at a time (targets: 4xx in < 2 s, /healthz < 500 ms)"
        )
        verdicts = []
        for kind in HOSTILE_KINDS:
            body = hostile_body(kind)
            health = Timer(server, "/healthz")
            health.start()
            began = time.monotonic()
            status = post_status(server, f"/api/tables/{table}/import", body)
            took = time.monotonic() - began
            figures = health.stop()
            worst = max(health.times, default=0)
            ok = 400 <= status < 500 and took < 2 and worst < 500
            verdicts.append(ok)
            print(
                f"  {kind:<26} {status} in {took:.2f} s; /healthz meanwhile {figures}  "
                f"{'PASS' if ok else 'FAIL'}"
            )
    finally:
        server.stop()


def ten_imports(folder: str) -> None:
    server = Server(folder, Path(folder) / "ten.log", IMPORT_MAX_BYTES=str(EIGHT_MIB + 64))
    try:
        codes = [server.post("/api/tables", {"name": f"Table {n}"})["code"] for n in range(10)]
        people = [f"Person {n:03d}" for n in range(BIG_TABLE_PEOPLE)]
        document = recorded_games(
            IMPORT_GAMES,
            lambda n: [people[(n * 7 + i * 37) % len(people)] for i in range(LARGEST_PLAYERS)],
        )
        for _ in range(20):
            server.get("/healthz")
        before = server.rss_mb()
        peak = before
        statuses: list[int] = []
        health = Timer(server, "/healthz")
        health.start()
        began = time.monotonic()
        senders = [
            threading.Thread(
                target=lambda code=code: statuses.append(
                    post_status(server, f"/api/tables/{code}/import", document, timeout=600)
                )
            )
            for code in codes
        ]
        for sender in senders:
            sender.start()
        while any(sender.is_alive() for sender in senders):
            peak = max(peak, server.rss_mb())
            time.sleep(0.05)
        took = time.monotonic() - began
        figures = health.stop()
        time.sleep(5)
        after = server.rss_mb()
        print(
            f"Ten imports at once: {IMPORT_GAMES} games of {LARGEST_PLAYERS} players among "
            f"{BIG_TABLE_PEOPLE} names each ({len(document) / 2**20:.2f} MiB of JSON), "
            f"statuses {sorted(statuses)}, all done in {took:.1f} s"
        )
        print(f"  /healthz meanwhile: {figures}")
        ok = peak - before < 300
        print(
            f"  server RSS: {before:.1f} MB before, peak {peak:.1f} MB (grew "
            f"{peak - before:.1f} MB; target < 300 MB), {after:.1f} MB 5 s after  "
            f"{'PASS' if ok else 'FAIL'}"
        )
    finally:
        server.stop()


def import_beside_saves(folder: str) -> None:
    server = Server(folder, Path(folder) / "beside.log", IMPORT_MAX_BYTES=str(EIGHT_MIB + 64))
    try:
        table = server.post("/api/tables", {"name": "The Bench"})["code"]
        people = [f"Person {n:03d}" for n in range(BIG_TABLE_PEOPLE)]
        document = recorded_games(
            IMPORT_GAMES,
            lambda n: [people[(n * 7 + i * 37) % len(people)] for i in range(LARGEST_PLAYERS)],
        )
        # The largest import the limits allow: IMPORT_MAX_GAMES games of 14 players.
        one = {"before": server.rss_mb()}
        answer: dict = {}

        def send() -> None:
            answer["status"] = post_status(
                server, f"/api/tables/{table}/import", document, timeout=600
            )

        saves: list[tuple[int, float]] = []
        sender = threading.Thread(target=send)
        began = time.monotonic()
        sender.start()
        while sender.is_alive():
            game = server.post("/api/games", {"players": ["Ann", "Ben", "Cy"]})["code"]
            for number in range(1, 12):
                if not sender.is_alive():
                    break
                body = {"results": [{"went_out": True}, {"points": 20}, {"points": 20}]}
                request = urllib.request.Request(
                    f"{server.base}/api/games/{game}/rounds/{number}",
                    json.dumps(body).encode(),
                    {"content-type": "application/json"},
                    method="PUT",
                )
                started = time.monotonic()
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        response.read()
                        status = response.status
                except urllib.error.HTTPError as error:
                    status = error.code
                saves.append((status, (time.monotonic() - started) * 1000))
                time.sleep(0.05)
        took = time.monotonic() - began
        times = [ms for _, ms in saves]
        statuses = sorted({status for status, _ in saves})
        ok = statuses == [200] and max(times, default=0) < 1000
        print(
            f"The largest import ({IMPORT_GAMES} games of {LARGEST_PLAYERS} players among "
            f"{BIG_TABLE_PEOPLE} names, {len(document) / 2**20:.2f} MiB): {answer.get('status')} "
            f"in {took:.1f} s (RSS {one['before']:.0f} MB before)"
        )
        print(
            f"  rounds saved to other games meanwhile: n={len(times)}, statuses {statuses}, "
            f"p50 {percentile(times, 0.5):.1f} ms, p99 {percentile(times, 0.99):.1f} ms, "
            f"max {max(times, default=0):.1f} ms (target: all 200 in < 1000 ms)  "
            f"{'PASS' if ok else 'FAIL'}"
        )
    finally:
        server.stop()


READS = 30
READ_TARGET_MS = 300.0
AFTER_WRITES = 8
FAMILY_OF_20 = [f"Kin {n:02d}" for n in range(20)]


def finish_game(server: Server, table: str, players: list[str]) -> None:
    """A new game at the table, played to its end (every round: the first seat goes out,
    the others keep 20 points)."""
    game = server.post("/api/games", {"players": players, "table": table})["code"]
    body = {"results": [{"went_out": True}] + [{"points": 20} for _ in players[1:]]}
    for number in range(1, 12):
        request = urllib.request.Request(
            f"{server.base}/api/games/{game}/rounds/{number}",
            json.dumps(body).encode(),
            {"content-type": "application/json"},
            method="PUT",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()


def table_reads(folder: str) -> None:
    server = Server(folder, Path(folder) / "reads.log", IMPORT_MAX_BYTES=str(EIGHT_MIB + 64))
    try:
        tables = []
        for label, people, size in (
            ("2,000 games among 20 people", FAMILY_OF_20, 6),
            ("2,000 games among 500 people", [f"Person {n:03d}" for n in range(500)], 4),
        ):
            made = server.post("/api/tables", {"name": label})
            document = recorded_games(
                IMPORT_GAMES,
                lambda n, people=people, size=size: [
                    people[(n * 7 + i * 37) % len(people)] for i in range(size)
                ],
            )
            server.post(f"/api/tables/{made['code']}/import", document, timeout=600)
            tables.append((label, made, people, size))
        print(
            f"Reads of a table (targets: p99 < {READ_TARGET_MS:.0f} ms, first reads and reads "
            "after a write included; GET /api/tables/{code} < 1 MB)"
        )
        verdicts = []
        for label, made, people, size in tables:
            keeper, watch = made["code"], made["watch_code"]
            person = json.loads(urllib.request.urlopen(f"{server.base}/api/tables/{keeper}").read())
            person_id = person["people"][0]["id"]
            print(f"  {label}:")
            paths = []
            for code in (keeper, watch):
                paths += [
                    f"/api/tables/{code}",
                    f"/api/tables/{code}?year=2025",
                    f"/api/tables/{code}?from=2025-03-02&to=2025-10-19",
                    f"/t/{code}",
                    f"/t/{code}?year=2025",
                    f"/t/{code}?from=2025-02-01&to=2025-06-30",
                    f"/t/{code}/people/{person_id}",
                    f"/t/{code}/people/{person_id}?year=2025",
                    f"/api/tables/{code}/people/{person_id}",
                    f"/t/{code}/people/{person_id}/rating.svg",
                ]
            for path in paths:
                runs = [server.fetch(path) for _ in range(READS)]
                times = [ms for _, ms in runs]
                size_kb = runs[0][0] / 1000
                ok = percentile(times, 0.99) < READ_TARGET_MS and (
                    not path.startswith("/api/tables/") or size_kb < 1000
                )
                verdicts.append(ok)
                shown = path.replace(keeper, "{keeper}").replace(watch, "{watch}")
                shown = shown.replace(f"/{person_id}", "/{id}")
                print(
                    f"    {shown:<52} {size_kb:7.1f} KB  first {times[0]:6.1f}  "
                    f"p50 {percentile(times, 0.5):6.1f}  p99 {percentile(times, 0.99):6.1f} ms  "
                    f"{'PASS' if ok else 'FAIL'}"
                )
            after: list[float] = []
            for _ in range(AFTER_WRITES):
                finish_game(server, keeper, people[:size])
                for path in (
                    f"/api/tables/{keeper}",
                    f"/t/{watch}",
                    f"/api/tables/{keeper}?year=2025",
                ):
                    after.append(server.fetch(path)[1])
            ok = max(after) < READ_TARGET_MS
            verdicts.append(ok)
            print(
                f"    first reads after a game finished ({AFTER_WRITES} games, 3 reads each): "
                f"p50 {percentile(after, 0.5):.1f}, max {max(after):.1f} ms  "
                f"{'PASS' if ok else 'FAIL'}"
            )
        print(f"  {'PASS' if all(verdicts) else 'FAIL'}: every read")
    finally:
        server.stop()


SEASON_CLIENTS = 16


def seasons_at_once(folder: str) -> None:
    server = Server(folder, Path(folder) / "seasons.log", IMPORT_MAX_BYTES=str(EIGHT_MIB + 64))
    try:
        codes = []
        for name in ("The Crowd", "The Neighbours"):
            code = server.post("/api/tables", {"name": name})["code"]
            document = recorded_games(
                IMPORT_GAMES,
                lambda n: [FAMILY_OF_20[(n * 7 + i * 3) % 20] for i in range(6)],
            )
            server.post(f"/api/tables/{code}/import", document, timeout=600)
            codes.append(code)
        crowd, neighbours = codes
        other = server.post("/api/games", {"players": ["Ann", "Ben", "Cy"]})["code"]
        kept_path = f"/api/tables/{neighbours}?year=2025"
        for _ in range(3):
            server.fetch(kept_path)
        before = [server.fetch(kept_path)[1] for _ in range(10)]
        health, page = Timer(server, "/healthz"), Timer(server, f"/api/games/{other}")
        health.start()
        page.start()
        start = threading.Barrier(SEASON_CLIENTS)
        season_times: list[float] = []

        def ask(client: int) -> None:
            start.wait()
            for round_ in range(4):
                first = 1 + (client * 4 + round_) % 28
                path = f"/api/tables/{crowd}?from=2025-01-{first:02d}&to=2025-12-{first:02d}"
                season_times.append(server.fetch(path)[1])

        clients = [threading.Thread(target=ask, args=(n,)) for n in range(SEASON_CLIENTS)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        health_figures, page_figures = health.stop(), page.stop()
        after = [server.fetch(kept_path)[1] for _ in range(10)]
        worst = max(percentile(health.times, 0.99), percentile(page.times, 0.99))
        kept_ok = max(after) < 100
        print(
            f"Sixteen clients at once, each asking 4 new from/to seasons of a table of "
            f"{IMPORT_GAMES} games: season answers p50 {percentile(season_times, 0.5):.1f}, "
            f"max {max(season_times):.1f} ms"
        )
        print(f"  GET /healthz meanwhile: {health_figures}")
        print(f"  GET /api/games/{{code}} (another game) meanwhile: {page_figures}")
        print(
            f"  another table's kept season: p50 {percentile(before, 0.5):.1f} ms before, "
            f"max {max(after):.1f} ms after (target: still kept, < 100 ms)"
        )
        ok = worst < 500 and kept_ok
        print(f"  {'PASS' if ok else 'FAIL'}: other requests' p99 {worst:.1f} ms (target < 500 ms)")
    finally:
        server.stop()


EXPORT_SECONDS = 2.0
EXPORTS_AT_ONCE = 4


def exports_at_once(folder: str) -> None:
    server = Server(folder, Path(folder) / "exports.log")
    try:
        table = server.post("/api/tables", {"name": "The Exporters"})["code"]
        document = recorded_games(
            IMPORT_GAMES,
            lambda n: [FAMILY[(n + i) % len(FAMILY)] for i in range(IMPORT_PLAYERS)],
        )
        imported = server.post(f"/api/tables/{table}/import", document, timeout=300)
        path = f"/api/tables/{table}/export"
        for _ in range(20):
            server.get("/healthz")
        size, alone_ms = server.fetch(path)
        print(
            f"Exports at once: a table of {imported['imported']} finished games of "
            f"{IMPORT_PLAYERS} players and 11 rounds"
        )
        alone_ok = alone_ms < EXPORT_SECONDS * 1000
        print(
            f"  one export: {size / 1e6:.2f} MB in {alone_ms / 1000:.2f} s "
            f"(target < {EXPORT_SECONDS:.0f} s)  {'PASS' if alone_ok else 'FAIL'}"
        )
        health = Timer(server, "/healthz")
        health.start()
        time.sleep(0.5)
        runs: list[tuple[int, float]] = []
        fetchers = [
            threading.Thread(target=lambda: runs.append(server.fetch(path)))
            for _ in range(EXPORTS_AT_ONCE)
        ]
        began = time.monotonic()
        for fetcher in fetchers:
            fetcher.start()
        for fetcher in fetchers:
            fetcher.join()
        took = time.monotonic() - began
        time.sleep(0.5)
        health_times = health.stop()
        p99 = percentile(health.times, 0.99)
        whole = len(runs) == EXPORTS_AT_ONCE and all(got == size for got, _ in runs)
        print(
            f"  {EXPORTS_AT_ONCE} at once: all done in {took:.2f} s, each "
            + ", ".join(f"{ms / 1000:.2f} s" for _, ms in sorted(runs, key=lambda r: r[1]))
            + f"; {'every one whole' if whole else 'SOME CUT SHORT'}"
        )
        print(f"  GET /healthz meanwhile: {health_times}")
        verdict = alone_ok and whole and p99 < 500
        print(
            f"  {'PASS' if verdict else 'FAIL'}: /healthz p99 {p99:.1f} ms while "
            f"{EXPORTS_AT_ONCE} export (target < 500 ms)"
        )
    finally:
        server.stop()


def main() -> int:
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="crownkeeper-abuse-") as folder:
        parts = (
            big_bodies,
            many_streams,
            held_connections,
            big_import,
            big_table,
            hostile_imports,
            ten_imports,
            import_beside_saves,
            exports_at_once,
            table_reads,
            seasons_at_once,
        )
        chosen = [p for p in parts if not sys.argv[1:] or p.__name__ in sys.argv[1:]]
        for part in chosen:
            sub = Path(folder) / part.__name__
            sub.mkdir()
            part(str(sub))
    return 0


if __name__ == "__main__":
    sys.exit(main())
