"""`make answers` never loses an answer: every committed report's summary is read and checked
before anything is written, a missing or damaged one is refused in one line naming the file
(and the field), and README.md and reports/README.md are replaced together or not at all
(`analysis.report.answers`, `sim.core.outputs.write_together`).

Each test works on a copy of the repository's README, reports/README.md and the committed
reports' summaries, damages it, runs `make answers` on it and checks: exit status 1, one
line on stderr naming the file, both READMEs byte for byte as before, no temporary file.
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.report.answers import main
from analysis.report.answers import readme_answers
from analysis.report.answers import reports_index
from analysis.report.answers import with_answers
from analysis.report.summaries import ORDER

REPO = Path(__file__).resolve().parents[1]
READMES = ("README.md", "reports/README.md")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of what `make answers` reads and writes, under a repository root of its own."""
    return _copy(tmp_path / "repo")


def _copy(root: Path) -> Path:
    (root / "reports").mkdir(parents=True)
    for name in READMES:
        shutil.copyfile(REPO / name, root / name)
    for name in ORDER:
        (root / "reports" / name).mkdir()
        shutil.copyfile(REPO / "reports" / name / "summary.json",
                        root / "reports" / name / "summary.json")
    return root


def _summary(root: Path, name: str) -> Path:
    return root / "reports" / name / "summary.json"


def _edit(root: Path, name: str, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite a summary with `change` applied to its content."""
    path = _summary(root, name)
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _state(root: Path) -> tuple[bytes, ...]:
    return tuple((root / name).read_bytes() for name in READMES)


def _temporaries(root: Path) -> list[Path]:
    return [p for folder in (root, root / "reports") for p in folder.glob(".*tmp*")]


def _refused(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run `make answers` on `root`, expecting a refusal: its one line on stderr."""
    before = _state(root)
    status = main([str(root)])
    out, err = capsys.readouterr()
    assert status == 1, (status, out, err)
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert _state(root) == before, "a refusal changed README.md or reports/README.md"
    assert _temporaries(root) == []
    return err.strip()


def _set(*keys: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for key in keys[:-1]:
            data = data[key]
        data[keys[-1]] = value
    return change


def _drop(*keys: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for key in keys[:-1]:
            data = data[key]
        del data[keys[-1]]
    return change


def _as_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


# (what is done to which report's summary, what the refusal says)
DAMAGE: dict[str, tuple[str, Callable[[Path], None], str]] = {
    "missing": ("stalls-ladder", Path.unlink, "no such report summary file"),
    "a folder": ("river-market", _as_folder, "is a folder"),
    "an empty object": ("customer-order", lambda p: p.write_text("{}"),
                        "title: missing"),
    "a list": ("river-coins", lambda p: p.write_text("[1, 2]"), "a list at its top"),
    "cut short": ("skill-ladder", lambda p: p.write_bytes(p.read_bytes()[:5000]),
                  "not valid JSON"),
    "nested deep": ("compensation", lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
                    "nested too deeply"),
    "binary": ("neutral-stack", lambda p: p.write_bytes(bytes(range(256)) * 8),
               "not UTF-8"),
    "too large": ("stalls", lambda p: p.write_text("{}" + " " * (17 << 20)),
                  "more than a report summary file may be"),
}
FIELDS: dict[str, tuple[str, Callable[[dict[str, Any]], None], str]] = {
    "games as text": ("stalls", _set("configuration", "games", value="17600"),
                      "configuration.games: expected a whole number, got '17600'"),
    "comparisons an object": ("customer-order", _set("comparisons", value={}),
                              "comparisons: expected a list, got an object"),
    "not a number": ("neutral-stack", _set("comparisons", 0, "diff", value=float("nan")),
                     "comparisons[0].diff: expected a finite number, got nan"),
    "infinite": ("river-market", _set("first_player", 1, "share", value=float("inf")),
                 "first_player[1].share: expected a finite number, got inf"),
    "a number too long": ("compensation-search", _set("cells", 0, "players", value=10**50),
                          "cells[0].players: expected a whole number, got a number of 51"),
    "null cells": ("compensation", _set("cells", value=None),
                   "cells: expected a list, got None"),
    "a finding without its label": ("skill-ladder", _drop("skill", "findings", 3, "label"),
                                    "skill.findings[3].label: missing"),
    "no skill levels": ("stalls-ladder", _set("skill", "levels", value=[]),
                        "skill.levels: expected at least 1 item(s), got 0"),
    "no extra Coins": ("river-coins", _drop("cells", 0, "recommended", "seat_coins"),
                       "cells[0].recommended.seat_coins: missing"),
    "half an interval": ("stalls", _set("comparisons", 0, "adj_hi", value=None),
                         "comparisons[0]: an interval needs both ends"),
    "half a character": ("neutral-stack-ladder", _set("title", value="\ud800"),
                         "title: expected text"),
}


@pytest.mark.parametrize("case", DAMAGE)
def test_a_missing_or_unreadable_summary_is_refused(
        tree: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    name, damage, says = DAMAGE[case]
    damage(_summary(tree, name))
    line = _refused(tree, capsys)
    assert f"reports/{name}/summary.json: " in line and says in line, line


@pytest.mark.parametrize("case", FIELDS)
def test_a_value_of_the_wrong_kind_is_refused_naming_its_field(
        tree: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    name, change, says = FIELDS[case]
    _edit(tree, name, change)
    line = _refused(tree, capsys)
    assert f"reports/{name}/summary.json: {says}" in line, line


def test_with_every_summary_missing_nothing_is_emptied(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ORDER:
        _summary(tree, name).unlink()
    assert "reports/customer-order/summary.json: no such" in _refused(tree, capsys)


def test_another_reports_damaged_summary_is_refused(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A report not among README's answers is still listed in reports/README.md: its
    summary is checked as well."""
    (tree / "reports" / "extra").mkdir()
    _summary(tree, "extra").write_text(json.dumps({"title": "Extra", "findings": []}))
    line = _refused(tree, capsys)
    assert "reports/extra/summary.json: configuration: missing" in line


def test_a_readme_without_its_answers_block_is_refused(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "README.md").write_text("# Portobello\n\nNo answers here.\n")
    assert "README.md: README has no answers block" in _refused(tree, capsys)


def test_the_refusal_is_one_line_from_the_command(tree: Path) -> None:
    """`python -m analysis.report.answers ROOT`, as `make answers` runs it: exit status 1,
    one line on stderr, no traceback, both files as they were."""
    before = _state(tree)
    for name, damage in (("stalls", Path.unlink),
                         ("customer-order", lambda p: p.write_text("[" * 100_000))):
        damage(_summary(tree, name))
        done = subprocess.run([sys.executable, "-m", "analysis.report.answers", str(tree)],
                              cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done
        assert "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
        assert f"reports/{name}/summary.json" in done.stderr
        assert _state(tree) == before
        shutil.copyfile(REPO / "reports" / name / "summary.json", _summary(tree, name))


# -- a full disk ----------------------------------------------------------------------------------
def _changed(root: Path) -> None:
    """Change a summary so that both files would be written anew (README shows the study's
    games, reports/README.md its cost): leaving them as they were is then the refusal's doing."""
    _edit(root, "customer-order", _set("configuration", "games", value=12_345))


class _FullFile:
    """A file that takes part of what is written, then fails as a full disk does."""

    def __init__(self, file: Any, name: str) -> None:
        self.file, self.name = file, name

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()

    def write(self, data: bytes) -> int:
        self.file.write(data[:len(data) // 2])
        self.file.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


@pytest.mark.parametrize("target", READMES)
def test_a_full_disk_leaves_both_files_as_they_were(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        target: str) -> None:
    """The disk fills while README.md (the first) or reports/README.md (the second) is
    written: neither is touched, the half-written temporary file is gone and the line names
    the file and what to do."""
    _changed(tree)
    path = tree / target

    def full_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened = open(file, mode, *args, **kwargs)  # noqa: SIM115 (closed by _FullFile)
        here = Path(file)
        if here.parent == path.parent and here.name.startswith(f".{path.name}."):
            return _FullFile(opened, str(file))
        return opened

    monkeypatch.setattr("sim.core.outputs.open", full_open, raising=False)
    line = _refused(tree, capsys)
    assert line.startswith(f"error: {path}: ") and "the disk is full" in line, line
    monkeypatch.undo()
    assert main([str(tree)]) == 0  # with room on the disk, both are written
    assert all(a != b for a, b in zip(_state(tree), _state(_copy(tree.parent / "before")),
                                      strict=True))


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A small memory file system of its own (mounting needs root; skipped where not
    permitted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a file system needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                          capture_output=True, timeout=30)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield disk
    finally:
        if subprocess.run(["umount", str(disk)], capture_output=True,
                          timeout=30).returncode != 0:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True, timeout=30)


def test_a_really_full_disk_leaves_both_files_as_they_were(
        tiny_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On a disk with room for README's new copy but not for reports/README.md's: README is
    not replaced alone."""
    root = _copy(tiny_disk / "repo")
    _changed(root)
    info = os.statvfs(tiny_disk)
    room = 40 << 10  # README (about 19 kB) fits, reports/README.md (about 80 kB) does not
    assert (root / "README.md").stat().st_size < room - 8192 < \
        (root / "reports" / "README.md").stat().st_size
    (tiny_disk / "filler").write_bytes(b"\0" * (info.f_bavail * info.f_frsize - room))
    line = _refused(root, capsys)
    assert line.startswith(f"error: {root / 'reports' / 'README.md'}: "), line


# -- random damage --------------------------------------------------------------------------------
MARK = "\0damage\0"  # a value replaced, after encoding, by text JSON cannot hold as a value
RAW = {"deep": "[" * 50_000 + "]" * 50_000, "huge": "1e999", "long": "9" * 80,
       "nan": "NaN"}


def _node(rng: random.Random, doc: Any) -> tuple[Any, Any]:
    """A random (container, key) of `doc`, reached from its top one random step at a time
    and stopping early more often than not deep down, so that the fields near the top, the
    ones the answers read, are damaged often."""
    parent, key = doc, rng.choice(list(doc))
    while True:
        value = parent[key]
        keys = list(value) if isinstance(value, dict) else range(len(value)) \
            if isinstance(value, list) else []
        if not keys or rng.random() < 0.5:
            return parent, key
        parent, key = value, rng.choice(list(keys))


def _swapped(value: Any) -> Any:
    """A value of another kind than `value`."""
    for kind, other in ((bool, "true"), (str, 7), (int, "7"), (float, [0.5]), (list, {}),
                        (dict, [])):
        if isinstance(value, kind):
            return other
    return 0


def _damage(rng: random.Random, text: str) -> tuple[bytes, str]:
    """`text` (a summary) with one random damage, and what it was."""
    how = rng.choice(("cut", "swap", "drop", "null", "text", "deep", "huge", "long", "nan"))
    if how == "cut":
        at = rng.randrange(len(text))
        return text.encode()[:at], f"cut at {at}"
    doc = json.loads(text)
    parent, key = _node(rng, doc)
    if how == "swap":
        parent[key] = _swapped(parent[key])
    elif how == "drop":
        del parent[key]
    else:
        parent[key] = {"null": None, "text": "damaged"}.get(how, MARK)
    out = json.dumps(doc)
    if how in RAW:
        out = out.replace(json.dumps(MARK), RAW[how])
    return out.encode(), f"{how} at {key!r}"


# What the answers read of a summary (and a little more); the rest (each cell's search
# history, the board, the calibration...) is left out of the summaries damaged at random, so
# that three hundred runs take seconds: the first run shows that leaving it out changes
# neither file.
READ = {"title", "description", "comparisons", "first_player", "variants", "ladder", "skill",
        "configuration", "findings", "format", "agents", "cells",
        # a population study's answers whoever plays
        "kind", "bots", "next", "margin", "players", "changes", "cost", "labels", "status",
        "command", "rounds", "uniform_games"}


def _read_only(text: str) -> str:
    data = {k: v for k, v in json.loads(text).items() if k in READ}
    data.get("configuration", {}).pop("board", None)
    for cell in data.get("cells", []):
        for bulk in ("history", "profiles", "confirmation", "baseline"):
            cell.pop(bulk, None)
    return json.dumps(data)


def test_random_damage_is_refused_in_one_line_or_written_whole(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three hundred summaries damaged at random (cut at a byte; a value of another kind,
    null, text, a huge or too long number, NaN or nested deep; a key or an item dropped):
    each is refused in one line with both files as they were, or both files are written
    from the same summaries."""
    texts = {name: _read_only(_summary(tree, name).read_text(encoding="utf-8"))
             for name in ORDER}
    for name, text in texts.items():
        _summary(tree, name).write_text(text, encoding="utf-8")
    before = _state(tree)
    assert main([str(tree)]) == 0 and _state(tree) == before
    capsys.readouterr()
    readme = before[0].decode()
    rng = random.Random(20261206)
    outcomes = {0: 0, 1: 0}
    for case in range(300):
        name = rng.choice(ORDER)
        data, what = _damage(rng, texts[name])
        _summary(tree, name).write_bytes(data)
        status = main([str(tree)])
        out, err = capsys.readouterr()
        where = f"case {case}: {name} {what}: {err or out}"
        assert status in outcomes, where
        outcomes[status] += 1
        if status == 0:
            assert err == "", where
            reports = tree / "reports"
            assert _state(tree) == (
                with_answers(readme, readme_answers(reports)).encode(),
                reports_index(reports).encode()), where
            for file, content in zip(READMES, before, strict=True):
                (tree / file).write_bytes(content)
        else:
            assert len(err.splitlines()) == 1 and err.startswith("error: "), where
            assert f"reports/{name}/summary.json" in err, where
            assert _state(tree) == before, where
        assert _temporaries(tree) == [], where
        _summary(tree, name).write_text(texts[name], encoding="utf-8")
    assert min(outcomes.values()) >= 30, outcomes  # both outcomes were met, often
