"""Live updates under load: 220 SSE viewers, 20 round saves, delay from save to screen.

Run: `make bench-live` (starts its own server on 127.0.0.1 with a throwaway database).

Game #1 gets 200 viewers and games #2-#11 get 2 each, all on `GET /g/{code}/events`
(text/event-stream, each message's `id:` is the game's version). Once every viewer has its
first message, the scorekeeper saves rounds 1-10 of game #1 and round 1 of each other game,
one save every ~300 ms, and the benchmark times how long each saved version takes to reach
each viewer of that game. Exit code is 0 even when a target is missed: read the verdict.
"""

import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAMES = 11
VIEWERS_ON_FIRST = 200
VIEWERS_PER_OTHER = 2
ROUNDS_ON_FIRST = 10
PLAYERS = ["Ann", "Ben", "Cy", "Dee"]
# Totals every round can leave (round 1 keeps 0 or 3 cards: 13 points at least).
RESULTS = [{"went_out": True}, {"points": 20}, {"points": 21}, {"points": 22}]
SAVE_EVERY_S = 0.3

HEALTH_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 10.0
CONNECT_AT_ONCE = 50
INITIAL_TIMEOUT_S = 30.0
HTTP_TIMEOUT_S = 10.0
STRAGGLERS_S = 5.0
STOP_TIMEOUT_S = 10.0

TARGET_P99_MS = 250.0
TARGET_MAX_MS = 1000.0
TARGET_RSS_MB = 150.0


# --- the server -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_python() -> str:
    venv_python = ROOT / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def start_server(folder: str, port: int, log) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(DATABASE_URL=f"sqlite:///{folder}/bench.db", HOST="127.0.0.1", PORT=str(port))
    # 200 viewers on one game: more than STREAMS_PER_GAME allows a game by default.
    env.update(STREAMS_PER_GAME=str(VIEWERS_ON_FIRST + 50), CREATE_RATE_LIMIT="off")
    return subprocess.Popen(
        [server_python(), "-m", "app"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is not None:
        return
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=STOP_TIMEOUT_S)


def wait_healthy(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"server exited with code {server.returncode} while starting")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"/healthz did not answer 200 within {HEALTH_TIMEOUT_S:.0f} s")


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process, in kB."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


# --- the scorekeeper (plain HTTP, in a thread) ------------------------------------------


def call_json(method: str, url: str, body: dict | None = None) -> tuple[int, dict, float]:
    """Send one request; return (status, JSON body, monotonic time just before sending)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    sent = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
            return response.status, json.loads(response.read() or b"{}"), sent
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text), sent
        except ValueError:
            return error.code, {"detail": text[:200].decode(errors="replace")}, sent


@dataclass
class Game:
    code: str
    view_code: str
    viewers: list["Viewer"] = field(default_factory=list)


@dataclass
class Save:
    game: int
    round: int
    sent: float
    status: int
    version: int | None
    took: float


# --- the viewers (raw asyncio streams) --------------------------------------------------


@dataclass
class Viewer:
    number: int
    game: int
    path: str
    received: dict[int, float] = field(default_factory=dict)  # version -> first receipt
    events: int = 0
    bytes: int = 0
    duplicates: int = 0
    without_id: int = 0
    pings: int = 0
    status: int | None = None
    chunked: bool = False
    error: str | None = None
    ended: bool = False  # the server closed the stream
    initial: asyncio.Event = field(default_factory=asyncio.Event)
    # SSE parsing state
    _buffer: bytes = b""
    _id: str | None = None
    _data: bool = False

    def feed(self, data: bytes, at: float) -> None:
        """Parse event-stream bytes; an event counts as received when its blank line arrives."""
        self.bytes += len(data)
        self._buffer += data
        buffer = self._buffer
        start = 0
        while True:
            cr = buffer.find(b"\r", start)
            lf = buffer.find(b"\n", start)
            if cr < 0 and lf < 0:
                break
            end = lf if cr < 0 else cr if lf < 0 else min(cr, lf)
            if buffer[end] == 13:  # \r: maybe \r\n split over two reads
                if end + 1 == len(buffer):
                    break
                after = end + 2 if buffer[end + 1] == 10 else end + 1
            else:
                after = end + 1
            self._line(buffer[start:end], at)
            start = after
        self._buffer = buffer[start:]

    def _line(self, line: bytes, at: float) -> None:
        if not line:
            if self._data or self._id is not None:
                self._dispatch(at)
            return
        if line.startswith(b":"):
            self.pings += 1
            return
        name, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        if name == b"id":
            self._id = value.decode(errors="replace")
        elif name == b"data":
            self._data = True

    def _dispatch(self, at: float) -> None:
        self.events += 1
        event_id, self._id, self._data = self._id, None, False
        try:
            version = int(event_id) if event_id is not None else None
        except ValueError:
            version = None
        if version is None:
            self.without_id += 1
        elif version in self.received:
            self.duplicates += 1
        else:
            self.received[version] = at
        self.initial.set()


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
    return status, headers


async def watch(viewer: Viewer, port: int, gate: asyncio.Semaphore) -> None:
    """Hold one viewer's stream open until cancelled, feeding what arrives to its parser."""
    writer = None
    try:
        async with gate:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, limit=1 << 20), CONNECT_TIMEOUT_S
            )
            writer.write(
                (
                    f"GET {viewer.path} HTTP/1.1\r\n"
                    f"Host: 127.0.0.1:{port}\r\n"
                    "Accept: text/event-stream\r\n"
                    "Accept-Encoding: identity\r\n"
                    "Cache-Control: no-cache\r\n"
                    "HX-Request: true\r\n"
                    "\r\n"
                ).encode()
            )
            await writer.drain()
            viewer.status, headers = await asyncio.wait_for(read_head(reader), INITIAL_TIMEOUT_S)
        if viewer.status != 200:
            viewer.error = f"HTTP {viewer.status}"
            return
        if "event-stream" not in headers.get("content-type", ""):
            viewer.error = f"content-type {headers.get('content-type')!r}"
            return
        if headers.get("content-encoding", "identity") != "identity":
            viewer.error = f"content-encoding {headers['content-encoding']!r}"
            return
        viewer.chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if viewer.chunked:
            while True:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    break
                chunk = await reader.readexactly(size + 2)
                viewer.feed(chunk[:-2], time.monotonic())
        else:
            while data := await reader.read(65536):
                viewer.feed(data, time.monotonic())
        viewer.ended = True
    except asyncio.CancelledError:
        raise
    except (asyncio.IncompleteReadError, ConnectionError) as error:
        viewer.ended = True
        viewer.error = f"stream cut: {type(error).__name__}"
    except (OSError, ValueError, TimeoutError) as error:
        viewer.error = f"{type(error).__name__}: {error}"
    finally:
        if writer is not None:
            writer.close()


# --- the run ----------------------------------------------------------------------------


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[min(len(ordered), int(rank)) - 1]


async def run(base: str, port: int, server: subprocess.Popen) -> dict:
    games = []
    for _ in range(GAMES):
        status, body, _ = await asyncio.to_thread(
            call_json, "POST", base + "/api/games", {"players": PLAYERS}
        )
        if status != 201 or "code" not in body:
            raise RuntimeError(f"POST /api/games answered {status}: {body}")
        games.append(Game(code=body["code"], view_code=body.get("watch_code") or body["code"]))
    watch_codes = sum(game.view_code != game.code for game in games)

    viewers = []
    for index, game in enumerate(games):
        for _ in range(VIEWERS_ON_FIRST if index == 0 else VIEWERS_PER_OTHER):
            viewer = Viewer(len(viewers), index, f"/g/{game.view_code}/events")
            viewers.append(viewer)
            game.viewers.append(viewer)
    rss_before = memory_kb(server.pid)

    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    connect_start = time.monotonic()
    tasks = [asyncio.create_task(watch(viewer, port, gate)) for viewer in viewers]
    try:
        deadline = time.monotonic() + INITIAL_TIMEOUT_S
        while time.monotonic() < deadline:
            pending = [
                viewer
                for viewer, task in zip(viewers, tasks, strict=True)
                if not viewer.initial.is_set() and not task.done()
            ]
            if not pending:
                break
            await asyncio.sleep(0.05)
        connected_in = time.monotonic() - connect_start
        initial = sum(viewer.initial.is_set() for viewer in viewers)
        rss_connected = memory_kb(server.pid)

        # Interleave: game #1 round 1, game #2 round 1, game #1 round 2, game #3 round 1, ...
        plan = []
        for round_number in range(1, ROUNDS_ON_FIRST + 1):
            plan.append((0, round_number))
            if round_number < GAMES:
                plan.append((round_number, 1))
        saves = []
        save_start = time.monotonic()
        cpu_start, bytes_start = time.process_time(), sum(v.bytes for v in viewers)
        for step, (index, round_number) in enumerate(plan):
            await asyncio.sleep(max(0.0, save_start + step * SAVE_EVERY_S - time.monotonic()))
            url = f"{base}/api/games/{games[index].code}/rounds/{round_number}"
            status, body, sent = await asyncio.to_thread(
                call_json, "PUT", url, {"results": RESULTS}
            )
            took = time.monotonic() - sent
            version = body.get("version") if status == 200 else None
            if status != 200:
                print(f"  ! PUT game #{index + 1} round {round_number}: {status} {body}")
            saves.append(Save(index, round_number, sent, status, version, took))

        expected = [
            (save, viewer)
            for save in saves
            if save.version is not None
            for viewer in games[save.game].viewers
        ]
        straggle_deadline = time.monotonic() + STRAGGLERS_S
        while time.monotonic() < straggle_deadline:
            if all(save.version in viewer.received for save, viewer in expected):
                break
            await asyncio.sleep(0.05)
        rss_after = memory_kb(server.pid)
        client_cpu = time.process_time() - cpu_start
        client_wall = time.monotonic() - save_start
        streamed = sum(v.bytes for v in viewers) - bytes_start
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    return dict(
        games=games,
        viewers=viewers,
        watch_codes=watch_codes,
        initial=initial,
        connected_in=connected_in,
        saves=saves,
        expected=expected,
        rss=(rss_before, rss_connected, rss_after),
        client=(client_cpu, client_wall, streamed),
    )


def report(result: dict) -> bool:
    viewers: list[Viewer] = result["viewers"]
    saves: list[Save] = result["saves"]
    expected = result["expected"]
    delays, missed, superseded = [], [], 0
    for save, viewer in expected:
        at = viewer.received.get(save.version)
        if at is None:
            missed.append((save, viewer))
            superseded += any(v > save.version for v in viewer.received)
        else:
            delays.append((at - save.sent) * 1000)
    delays.sort()
    missed_viewers = {viewer.number for _, viewer in missed}
    failed_saves = [save for save in saves if save.status != 200]
    rss_before, rss_connected, rss_after = result["rss"]

    print(
        f"Viewers: {len(viewers)} ({VIEWERS_ON_FIRST} on game #1, {VIEWERS_PER_OTHER} on each "
        f"of {GAMES - 1} others); watch codes used: {result['watch_codes']}/{GAMES} games"
    )
    print(
        f"  initial message: {result['initial']}/{len(viewers)} viewers "
        f"in {result['connected_in'] * 1000:.0f} ms"
    )
    transfer = "chunked" if any(v.chunked for v in viewers) else "not chunked"
    print(f"  transfer: {transfer}; keep-alive pings seen: {sum(v.pings for v in viewers)}")
    errors: dict[str, int] = {}
    for viewer in viewers:
        if viewer.error or viewer.ended:
            reason = viewer.error or "stream ended by server"
            errors[reason] = errors.get(reason, 0) + 1
    for reason, count in sorted(errors.items(), key=lambda item: -item[1]):
        print(f"  ! {count} viewer(s): {reason}")
    print(
        f"Saves: {len(saves)} ({len(failed_saves)} failed); PUT time "
        f"p50 {statistics.median(s.took for s in saves) * 1000:.1f} ms, "
        f"max {max(s.took for s in saves) * 1000:.1f} ms"
    )
    print(
        f"Deliveries: expected {len(expected)}, received {len(delays)}; "
        f"duplicates {sum(v.duplicates for v in viewers)}, "
        f"events without a numeric id {sum(v.without_id for v in viewers)}"
    )
    client_cpu, client_wall, streamed = result["client"]
    per_event = streamed / max(1, len(delays))
    print(
        f"  streamed {streamed / 1e6:.1f} MB after the first messages (~{per_event / 1024:.1f} KB "
        f"per delivery); this client used {client_cpu:.2f} s CPU in {client_wall:.2f} s"
    )
    if delays:
        p50, p99, worst = percentile(delays, 0.5), percentile(delays, 0.99), delays[-1]
        print(f"Delay save -> viewer: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {worst:.1f} ms")
    else:
        p50 = p99 = worst = float("inf")
        print("Delay save -> viewer: no deliveries")
    for index, game in enumerate(result["games"][:2]):
        mine = sorted(
            (viewer.received[save.version] - save.sent) * 1000
            for save, viewer in expected
            if save.game == index and save.version in viewer.received
        )
        if mine:
            print(
                f"  game #{index + 1} ({len(game.viewers)} viewers): "
                f"p50 {percentile(mine, 0.5):.1f} ms, p99 {percentile(mine, 0.99):.1f} ms, "
                f"max {mine[-1]:.1f} ms"
            )
    firsts, spreads = [], []
    for save in saves:
        if save.game != 0 or save.version is None:
            continue
        times = [
            v.received[save.version]
            for v in result["games"][0].viewers
            if save.version in v.received
        ]
        if times:
            firsts.append((min(times) - save.sent) * 1000)
            spreads.append((max(times) - min(times)) * 1000)
    if firsts:
        print(
            f"  game #1 per save (medians): first viewer {statistics.median(firsts):.1f} ms "
            f"after the PUT, last viewer {statistics.median(spreads):.1f} ms after the first"
        )
        slowest = max(range(len(firsts)), key=lambda i: firsts[i] + spreads[i])
        print(
            f"  game #1 slowest save (#{slowest + 1} of {len(firsts)}): first viewer "
            f"{firsts[slowest]:.1f} ms after the PUT, last {spreads[slowest]:.1f} ms after that"
        )
    print(
        f"Missed updates: {len(missed)} deliveries on {len(missed_viewers)} viewer(s) "
        f"({superseded} of them covered by a later version)"
    )
    for save, viewer in missed[:5]:
        print(
            f"  e.g. viewer {viewer.number} (game #{viewer.game + 1}) never got version "
            f"{save.version} (round {save.round}); got {sorted(viewer.received)}"
        )
    rss_mb = rss_after.get("VmRSS", 0) / 1024
    hwm_mb = rss_after.get("VmHWM", 0) / 1024
    print(
        f"Server memory: RSS {rss_mb:.1f} MB after the run (peak VmHWM {hwm_mb:.1f} MB; "
        f"{rss_before.get('VmRSS', 0) / 1024:.1f} MB before viewers, "
        f"{rss_connected.get('VmRSS', 0) / 1024:.1f} MB with viewers connected)"
    )

    checks = [
        (f"p99 < {TARGET_P99_MS:.0f} ms", p99 < TARGET_P99_MS, f"{p99:.1f} ms"),
        (f"max < {TARGET_MAX_MS:.0f} ms", worst < TARGET_MAX_MS, f"{worst:.1f} ms"),
        ("missed == 0", not missed and not failed_saves and bool(expected), f"{len(missed)}"),
        (f"RSS < {TARGET_RSS_MB:.0f} MB", rss_mb < TARGET_RSS_MB, f"{rss_mb:.1f} MB"),
    ]
    for name, ok, value in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {name:<16} ({value})")
    passed = all(ok for _, ok, _ in checks)
    print("RESULT: PASS" if passed else "RESULT: FAIL")
    return passed


def main() -> int:
    folder = tempfile.mkdtemp(prefix="crownkeeper-bench-")
    server = None
    log_path = Path(folder) / "server.log"
    try:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with open(log_path, "wb") as log:
            server = start_server(folder, port, log)
        try:
            wait_healthy(base, server)
            result = asyncio.run(run(base, port, server))
        except Exception:
            tail = log_path.read_bytes()[-3000:].decode(errors="replace")
            print(f"--- server log (tail) ---\n{tail}\n---", file=sys.stderr)
            raise
        report(result)
    except Exception as error:  # a benchmark that could not run says so, and fails
        print(f"RESULT: FAIL (benchmark could not run: {type(error).__name__}: {error})")
        return 1
    finally:
        if server is not None:
            stop_server(server)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
