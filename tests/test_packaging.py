"""The project's two dependency lists (pip and conda) say the same thing."""

import pathlib
import re

import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _pip_requirements():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = set(meta["dependencies"])
    for extra, items in meta["optional-dependencies"].items():
        if extra == "cuda":  # GPU-only; conda users add cupy themselves
            continue
        reqs |= {r for r in items if not r.startswith("minigrad-course")}
    return reqs


def _conda_pip_section():
    lines = (ROOT / "environment.yml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s+- pip:\s*$", line))
    out = set()
    for line in lines[start + 1 :]:
        m = re.match(r"\s+- (\S.*)$", line)
        if not m:
            break
        out.add(m.group(1).strip())
    return out


def test_environment_yml_matches_pyproject():
    assert _conda_pip_section() == _pip_requirements()


def test_torch_is_pinned_everywhere():
    named_torch = [
        r
        for r in _pip_requirements() | _conda_pip_section()
        if re.split(r"[<>=!~ \[]", r, maxsplit=1)[0] == "torch"
    ]
    assert named_torch == ["torch==2.13.0"]
