"""Abuse, measured on a real server (`python -m app` on 127.0.0.1), three parts:

1. Big bodies: four 20 MB JSON bodies at once (two with Content-Length, two chunked), the
   server's RSS before, at its peak and after, and GET /api/games/{code} times meanwhile.
2. Streams: 2,000 live streams (100 on each of 20 games) opening together, and
   GET /api/games/{code} times (p50, p99, max) while they open.
3. Held connections: the server started with its open-file limit at 1,024 (soft and hard),
   300 idle or slow connections held open, /healthz times and how much the log grew.

Run with `make bench-abuse`; it prints the figures for docs/BENCHMARKS.md. Targets: RSS
growth under 20 MB, GET p99 under 500 ms while streams open, /healthz under 1 s, log growth
under 100 KB.
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

    def post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(
            self.base + path, json.dumps(body).encode(), {"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

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


def main() -> int:
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="crownkeeper-abuse-") as folder:
        parts = (big_bodies, many_streams, held_connections)
        chosen = [p for p in parts if not sys.argv[1:] or p.__name__ in sys.argv[1:]]
        for part in chosen:
            sub = Path(folder) / part.__name__
            sub.mkdir()
            part(str(sub))
    return 0


if __name__ == "__main__":
    sys.exit(main())
