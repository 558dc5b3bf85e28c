"""The play server as a hostile page or a careless user meets it, through HTTP on 127.0.0.1:
a foreign Host (DNS rebinding) and a foreign Origin are refused, files outside the folder
the server was given cannot be read (nor quoted), bots and hints are capped in budget and
time while other games keep answering, bodies are cut at their cap before they are read,
malformed bodies are 4xx naming the field, a folder that cannot take the record does not
lose the game, and SIGTERM stops the server within seconds. A page on another origin tries
to start a game in a real browser."""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from servers import free_port
from servers import serving

pytest.importorskip("starlette", reason="needs starlette (web extra)")
pytest.importorskip("uvicorn", reason="needs uvicorn (web extra)")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from starlette.testclient import TestClient

from sim.cli.command import main
from sim.web import limits
from sim.web.app import build_app

SHORT = {"stalls_per_player": 4}
SECRET = "hunter2-SECRET-RULES"


class Live:
    """A server on 127.0.0.1 in this process, and raw requests to it."""

    def __init__(self, app: Any, port: int) -> None:
        self.app, self.port = app, port

    def request(self, method: str, path: str, body: bytes | str | None = None,
                headers: dict[str, str] | None = None, timeout: float = 30.0
                ) -> tuple[int, dict[str, Any] | str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if body is not None:
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        conn.request(method, path, body=body, headers=sent)
        r = conn.getresponse()
        text = r.read().decode()
        conn.close()
        try:
            return r.status, json.loads(text)
        except ValueError:
            return r.status, text

    def post(self, path: str, data: Any, **kw: Any) -> tuple[int, Any]:
        return self.request("POST", path, json.dumps(data), **kw)

    def new_game(self, **fields: Any) -> str:
        status, data = self.post("/api/games", {"players": 2, "agents": ["human", "random"],
                                                "switches": SHORT, **fields})
        assert status == 200, data
        return str(data["state"]["game_id"])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    files = tmp_path / "files"
    files.mkdir()
    (files / "short.toml").write_text("stalls_per_player = 4\n")
    (files / "secret.toml").write_text(f'max_rounds = "{SECRET}"\n')
    (tmp_path / "outside.toml").write_text("stalls_per_player = 4\n")
    port = free_port()
    app = build_app(tmp_path / "play", bot_delay_ms=0, port=port, files_dir=files)
    with serving(app, port):
        yield Live(app, port)


# -- who gets in -------------------------------------------------------------------------------
def test_only_the_servers_own_host_is_answered(live: Live) -> None:
    p = live.port
    for host in ("evil.example", f"evil.example:{p}", f"127.0.0.1:{p + 1}", "127.0.0.1"):
        status, data = live.request("GET", "/", headers={"Host": host})
        assert status == 403 and isinstance(data, dict) and data["field"] == "Host", host
    for host in (f"127.0.0.1:{p}", f"localhost:{p}", f"[::1]:{p}", f"LOCALHOST:{p}"):
        status, _ = live.request("GET", "/", headers={"Host": host})
        assert status == 200, host
    # a rebound page's API calls are refused too, reads included
    gid = live.new_game()
    status, _ = live.request("GET", f"/api/games/{gid}", headers={"Host": f"evil.example:{p}"})
    assert status == 403


def test_writes_from_another_origin_or_without_json_are_refused(live: Live) -> None:
    mine = live.new_game()
    body = json.dumps({"players": 2, "agents": "random"})
    cases = [({"Origin": "http://evil.example"}, 403, "Origin"),
             ({"Origin": f"http://127.0.0.1:{live.port + 1}"}, 403, "Origin"),
             ({"Origin": "null"}, 403, "Origin"),
             ({"Sec-Fetch-Site": "cross-site"}, 403, "Sec-Fetch-Site"),
             ({"Content-Type": "text/plain"}, 415, "Content-Type"),
             ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "Content-Type")]
    before = len(live.app.state.games)
    for headers, status, field in cases:
        got, data = live.request("POST", "/api/games", body, headers=headers)
        assert (got, data["field"]) == (status, field), headers
    # 250 foreign attempts create nothing and evict nobody: the player's game still answers
    for _ in range(250):
        live.request("POST", "/api/games", body, headers={"Origin": "http://evil.example",
                                                          "Content-Type": "text/plain"})
    assert len(live.app.state.games) == before
    status, state = live.request("GET", f"/api/games/{mine}")
    assert status == 200 and state["game_id"] == mine
    # the page's own origin may write
    status, _ = live.request("POST", "/api/games", body,
                             headers={"Origin": f"http://localhost:{live.port}"})
    assert status == 200


class _Foreign(BaseHTTPRequestHandler):
    """A page on another origin whose script tries to start a game on the play server."""

    target = ""

    def do_GET(self) -> None:
        page = f"""<!doctype html><body><script>
        const url = "{self.target}/api/games";
        const body = JSON.stringify({{players: 2, agents: "random"}});
        Promise.allSettled([
          fetch(url, {{method: "POST", mode: "no-cors", headers: {{"Content-Type":
                 "text/plain"}}, body}}),
          fetch(url, {{method: "POST", headers: {{"Content-Type": "application/json"}},
                 body}}),
        ]).then(() => {{ document.body.dataset.done = "1"; }});
        </script></body>"""
        data = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_page_on_another_origin_cannot_start_a_game(live: Live, browser: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    handler = type("Handler", (_Foreign,), {"target": f"http://127.0.0.1:{live.port}"})
    foreign = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=foreign.serve_forever, daemon=True).start()
    try:
        before = len(live.app.state.games)
        browser.get(f"http://localhost:{foreign.server_address[1]}/")
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script("return document.body.dataset.done") == "1")
        assert len(live.app.state.games) == before
    finally:
        foreign.shutdown()


# -- files -------------------------------------------------------------------------------------
def test_the_setup_reads_only_the_servers_files_and_never_quotes_them(live: Live,
                                                                       tmp_path: Path) -> None:
    ok = live.new_game(rules_file="short.toml")
    assert ok
    for name in (str(tmp_path / "outside.toml"), "../outside.toml", "/etc/passwd",
                 "nosuch.toml"):
        status, data = live.post("/api/games", {"players": 2, "agents": "random",
                                                "rules_file": name})
        assert status == 422 and data["field"] == "rules_file", (name, data)
        assert "files this server offers" in data["error"]
    status, data = live.post("/api/games", {"players": 2, "agents": "random",
                                            "board": "/etc/passwd"})
    assert status == 422 and data["field"] == "board" and "root" not in data["error"]
    status, data = live.post("/api/games", {"players": 2, "agents": "random",
                                            "rules_file": "secret.toml"})
    assert status == 422 and data["field"] == "rules_file"
    assert "max_rounds" in data["error"] and SECRET not in data["error"], data
    assert "hunter2" not in json.dumps(data)


def test_a_server_without_files_reads_none(tmp_path: Path) -> None:
    client = TestClient(build_app(tmp_path / "play", port=8765),
                        base_url="http://127.0.0.1:8765")
    r = client.post("/api/games", json={"players": 2, "agents": "random",
                                        "rules_file": str(tmp_path / "x.toml")})
    assert r.status_code == 422 and "reads no files" in r.json()["error"]


# -- caps and other games ----------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "words"), [
    ("mcts:iterations=1000000000", "iterations=1,000,000,000 is over this server's cap"),
    ("fastmcts:nodes=1000000000", "nodes=1,000,000,000 is over"),
    ("openspiel-mcts:simulations=99999999", "simulations=99,999,999 is over"),
    ("fastmcts:time=100", "time=100 is over this server's cap of 5 seconds"),
    ("no-district(mcts:iterations=100000000)", "iterations=100,000,000 is over"),
])
def test_a_budget_over_the_cap_is_refused(live: Live, spec: str, words: str) -> None:
    gid = live.new_game()
    live.post(f"/api/games/{gid}/click", {"target": "district", "index": 0})
    status, data = live.post(f"/api/games/{gid}/hint", {"agent": spec})
    assert status == 422 and data["field"] == "agent" and words in data["error"], data
    status, data = live.post("/api/games", {"players": 2, "agents": ["human", spec]})
    assert status == 422 and data["field"] == "agents" and words in data["error"], data


def test_a_long_hint_stops_at_the_time_cap_and_other_games_keep_answering(
        live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SECONDS", 1.5)
    busy, other = live.new_game(), live.new_game(seed=1)
    live.post(f"/api/games/{busy}/click", {"target": "district", "index": 0})
    result: dict[str, Any] = {}

    def ask() -> None:
        start = time.monotonic()
        result["hint"] = live.post(f"/api/games/{busy}/hint",
                                   {"agent": "mcts:iterations=20000"})
        result["seconds"] = time.monotonic() - start

    asking = threading.Thread(target=ask)
    asking.start()
    time.sleep(0.3)
    waits = []
    view: dict[str, Any] = {}
    viewer = threading.Thread(target=lambda: view.update(
        page=live.request("GET", f"/games/{busy}/view")))
    viewer.start()  # the busy game's page waits for its game, and only it does
    for _ in range(5):
        start = time.monotonic()
        status, state = live.request("GET", f"/api/games/{other}")
        waits.append(time.monotonic() - start)
        assert status == 200 and state["game_id"] == other
        status, _ = live.request("GET", "/")
        assert status == 200
        time.sleep(0.1)
    asking.join(30)
    viewer.join(30)
    status, hint = result["hint"]
    assert status == 200 and hint["choice"].startswith("seat 0"), hint
    assert hint["agent"] == "mcts:iterations=20000"
    assert result["seconds"] < 1.5 + 3, result  # the cap, not 20,000 iterations
    assert max(waits) < 1.0, waits  # answered while the hint ran
    assert view["page"][0] == 200 and "<svg" in view["page"][1]


# -- bodies ------------------------------------------------------------------------------------
def _raw(port: int, head: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(head.encode())
    return s


def _status(s: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split()[1])


def test_a_huge_body_is_refused_by_its_length_before_it_is_read(live: Live) -> None:
    s = _raw(live.port, f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\n"
                        "Content-Type: application/json\r\nContent-Length: 300000000\r\n\r\n")
    start = time.monotonic()
    assert _status(s) == 413  # answered with none of the 300 MB sent
    assert time.monotonic() - start < 5
    s.close()


def test_a_streamed_body_is_cut_at_the_cap(live: Live) -> None:
    s = _raw(live.port, f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\n"
                        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    sent = 0
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    while sent < 20 << 20:  # a 20 MB stream, unless the server answers first
        readable, _, _ = select.select([s], [], [], 0)
        if readable:
            break
        try:
            s.sendall(chunk)
        except OSError:
            break
        sent += 0x4000
    assert _status(s) == 413
    assert sent < 4 << 20, sent  # cut near the 64 KB cap, not read to the end
    s.close()


def test_malformed_bodies_are_4xx_naming_the_field(live: Live) -> None:
    gid = live.new_game()
    status, data = live.request("POST", "/api/games", "[" * 60_000)
    assert (status, data["field"]) == (400, "body") and "nested too deeply" in data["error"]
    status, data = live.request("POST", f"/api/games/{gid}/click", "[" * 60_000)
    assert (status, data["field"]) == (400, "body")
    huge = "9" * 5000
    status, data = live.request("POST", "/api/games",
                                f'{{"players": 2, "agents": "random", "seed": {huge}}}')
    assert (status, data["field"]) == (422, "seed") and "5,000 digits" in data["error"]
    status, data = live.request("POST", f"/api/games/{gid}/click",
                                f'{{"target": "district", "index": {huge}}}')
    assert (status, data["field"]) == (422, "index") and "5,000 digits" in data["error"]
    status, data = live.request("POST", f"/api/games/{gid}/click", b"\xff\xfe{")
    assert (status, data["field"]) == (400, "body")
    status, data = live.request("POST", "/api/games", "{}",
                                headers={"Content-Length": "12abc"})
    assert status in (400, 413) or status >= 400


def test_a_folder_that_cannot_take_the_record_keeps_the_game(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    client = TestClient(build_app(blocker / "play", bot_delay_ms=0, port=8765),
                        base_url="http://127.0.0.1:8765",
                        headers={"Content-Type": "application/json"})
    r = client.post("/api/games", json={"players": 2, "agents": ["greedy", "greedy"],
                                        "seat": 0, "switches": SHORT, "seed": 4})
    gid = r.json()["state"]["game_id"]
    client.post(f"/api/games/{gid}/click", json={"target": "district", "index": 0})
    for _ in range(500):
        state = client.get(f"/api/games/{gid}").json()
        if state["finished"]:
            break
        if state["human_to_move"]:
            hint = client.post(f"/api/games/{gid}/hint", json={"agent": "random"})
            assert hint.status_code == 200
            t = state["targets"]
            click = ({"target": "spot", "index": t["spots"][0]} if t["spots"] else
                     {"target": "square", "index": t["squares"][0]} if t["squares"] else
                     {"target": "token", "value": t["tokens"][-1][0],
                      "neutral": bool(t["tokens"][-1][1])} if t["tokens"] else
                     {"target": "end"} if "end" in t["buttons"] else
                     {"target": "draw"} if "draw" in t["buttons"] else
                     {"target": "district", "index": t["districts"][0]["district"]
                      if isinstance(t["districts"][0], dict) else t["districts"][0],
                      "value": t["districts"][0]["value"]
                      if isinstance(t["districts"][0], dict) else 0})
            r = client.post(f"/api/games/{gid}/click", json=click)
        else:
            r = client.post(f"/api/games/{gid}/bot")
        assert r.status_code == 200, r.text
    assert state["finished"] and state["record"] is None
    assert "could not be saved" in state["save_error"] and str(blocker) in state["save_error"]
    assert client.get(f"/games/{gid}/view").status_code == 200  # still viewable


def test_the_command_refuses_a_folder_it_cannot_save_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["serve", "--out", str(blocker / "play"), "--port", str(free_port())]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot save games there" in err[0] and "--out" in err[0]
    assert main(["serve", "--files", str(blocker), "--port", str(free_port())]) == 1
    assert "--files" in capsys.readouterr().err


# -- stopping ----------------------------------------------------------------------------------
def test_sigterm_stops_the_server_within_seconds_while_a_hint_thinks(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "serve", "--port", str(port),
                             "--out", str(tmp_path / "play"), "--bot-delay", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "playing at" in proc.stdout.readline()
        live = Live(None, port)
        deadline = time.monotonic() + 20
        while True:  # the line comes as the server starts listening
            try:
                gid = live.new_game()
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        live.post(f"/api/games/{gid}/click", {"target": "district", "index": 0})
        thinking = threading.Thread(target=lambda: _ignore(live.post, f"/api/games/{gid}/hint",
                                                            {"agent": "mcts:iterations=20000"}),
                                    daemon=True)
        thinking.start()
        time.sleep(0.5)
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
        assert time.monotonic() - start < limits.MAX_SECONDS
        assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    finally:
        if proc.poll() is None:
            proc.kill()


def _ignore(call: Any, *args: Any) -> None:
    with contextlib.suppress(OSError):  # the server went away mid-request: the point
        call(*args)
