"""The likely mistake behind a failing report: its differences matched against the planted bugs'.

Each planted bug (tests/planted_bugs.py for the engine, coursekit/exercises/planted.py for the
exercises) is a one-line mistake a student makes. Its signature is which scenarios it fails and
how: for each such scenario, the differences it shows, each reduced to a key that holds on any
seed (the observation, the field, and the shape of the difference: `True -> False`, `raised
RuntimeError -> returned`, `values`), split into those seen on every seed the signature was
computed on ("always") and those seen on some ("sometimes"). `make diagnoses` (bench/diagnoses.py)
computes them and writes them beside this module, as data; nothing here runs an engine.

diagnose(results) scores each bug against a report's failures, restricted to the scenarios the
report ran (a test cell checks a few rules only): the share of the report's differences the bug
explains times the share of the bug's expected differences the report shows, per difference and
per scenario. A bug is named only above MIN_CONFIDENCE: a wrong diagnosis is worse than none.
"""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache
from pathlib import Path

from autograder.i18n import _

DATA = Path(__file__).with_name("diagnoses.json.gz")
# Below this a match is not shown (bench/diagnoses.py measures how often the shown ones are
# right, on bugs, mutants and seeds the signatures were not computed from). A planted bug
# scores at least 0.9 against its own signature on seeds it was not computed from (seed 31
# of tests/test_planted_bugs.py: clone_shares_memory 0.9, every other one 0.95 or more); a
# near neighbour (a bug or mutant with some of the same failures) mostly 0.8 to 0.9.
MIN_CONFIDENCE = 0.9
# A second mistake is named only when it explains what the first leaves unexplained this well.
MAX_SHOWN = 3

# Texts that hold on every seed as they are: flags, names, small integers, None.
_EXACT = re.compile(r"(True|False|None|-?\d{1,4}|'[A-Za-z_0-9]*'|torch\.\w+|device\('\w+'\))")
_RAISED = re.compile(r"(?:stopped: )?raised (\w+)")
_CATEGORIES = re.compile(r"\w+Warning(?:;\w+Warning)*")
# a number inside an observation's label, which a seed may have drawn ("linspace(0,
# 1.3967040885153712)", "int32 with 2**31+2: a + v"): every one, the observation stays named
_DRAWN = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def shape(field: str, reference: str, engine: str) -> str:
    """How PyTorch's text and the engine's differ, without the values a seed draws."""
    return f"{_kind(reference)} -> {_kind(engine)}"


def _kind(text: str) -> str:
    """A text's shape; a shape is its own shape."""
    text = str(text)
    if _EXACT.fullmatch(text) or text in ("tensor", "sequence", "value", "no warning"):
        return text
    if _CATEGORIES.fullmatch(text):
        return text
    raised = _RAISED.match(text)
    if raised:
        return f"raised {raised.group(1)}"
    if text.startswith("returned "):
        rest = text.removeprefix("returned ")
        return "returned " + (rest if _EXACT.fullmatch(rest) else _kind(rest).split(" ")[0])
    if text.startswith("tensor(") or text.startswith("'tensor("):
        return "tensor"
    if text.startswith("no warning"):
        return "no warning"
    if re.match(r"\w+Warning: ", text):
        return ";".join(sorted({w.split(":")[0].strip() for w in text.split("; ")}))
    if text.startswith("[") or text.startswith("("):
        return "sequence"
    return "value"


def key(diff: dict) -> str:
    """One difference as it holds on any seed: observation | field | shape."""
    label = _DRAWN.sub("#", str(diff["label"] or ""))
    return "|".join((label, diff["field"], shape(diff["field"], diff["reference"], diff["engine"])))


def keys(results) -> dict[str, set[str]]:
    """scenario id -> the keys of its differences, for the failed results of a report."""
    return {r.id: {key(d) for d in r.differences} for r in results if r.status == "failed"}


@lru_cache(maxsize=1)
def load() -> dict:
    """{"fingerprint": ..., "seeds": [...], "bugs": {bug id: signature}}; empty bugs when this
    copy carries no signatures."""
    if not DATA.is_file():
        return {"fingerprint": "", "seeds": [], "bugs": {}}
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def diagnose(results, signatures: dict | None = None) -> list[dict]:
    """The likely mistakes behind `results` (a report's ScenarioResults), best first: each
    {"bug", "rule", "text", "confidence", "scenario", "evidence", "also"} ("also": the bugs
    with the very same signature, which no observation tells apart); [] when nothing failed or
    nothing matches well. After the best match, another is named only where it matches well
    what the ones named leave unexplained (a student's engine may hold two mistakes)."""
    failed = keys(results)
    ran = {r.id for r in results if r.status in ("passed", "failed")}
    bugs = load()["bugs"] if signatures is None else signatures
    shown = []
    while failed and len(shown) < MAX_SHOWN:
        named = {d["bug"] for d in shown}
        scored = sorted(
            (-score(failed, ran, sig), name) for name, sig in bugs.items() if name not in named
        )
        if not scored or -scored[0][0] < MIN_CONFIDENCE:
            break
        confidence, name = -scored[0][0], scored[0][1]
        found = _diagnosis(name, bugs[name], confidence, results)
        # bugs no observation told apart when the signatures were computed: named too
        same = bugs[name]["scenarios"]
        found["also"] = sorted(n for n, s in bugs.items() if n != name and s["scenarios"] == same)
        shown.append(found)
        failed = {
            sid: rest
            for sid, found in failed.items()
            if (rest := found - explained_in(bugs[name], sid))
        }
    return shown


def explained_in(sig: dict, sid: str) -> set[str]:
    entry = sig["scenarios"].get(sid)
    return set(entry["always"]) | set(entry["sometimes"]) if entry else set()


def score(failed: dict[str, set[str]], ran: set[str], sig: dict) -> float:
    """How well one bug's signature matches the failures, in [0, 1]: 1 when the report shows
    exactly the differences the bug always shows (and perhaps some it sometimes shows). Each
    scenario weighs the same, however many differences it lists: the share of each failed
    scenario's differences the bug explains, and of each scenario the bug always fails, the
    share of its differences the report shows."""
    expected = {sid: e for sid, e in sig["scenarios"].items() if sid in ran}
    always = {sid: set(e["always"]) for sid, e in expected.items() if e["always"]}
    if not expected or not always:
        return 0.0
    explained = sum(len(k & explained_in(sig, sid)) / len(k) for sid, k in failed.items())
    shown = sum(len(failed.get(sid, set()) & keys) / len(keys) for sid, keys in always.items())
    return round(((explained / len(failed)) * (shown / len(always))) ** 0.5, 3)


def _diagnosis(name: str, sig: dict, confidence: float, results) -> dict:
    failed_rules = [rule for r in results if r.status == "failed" for rule in r.rules]
    rule = sig["rule"] if sig["rule"] in failed_rules else None
    evidence, scenario = "", ""
    for r in results:
        if r.status != "failed" or r.id not in sig["scenarios"]:
            continue
        mine = explained_in(sig, r.id)
        diff = next((d for d in r.differences if key(d) in mine), None)
        if diff is not None:
            rule = rule or next((x for x in r.rules if x in failed_rules), None)
            head = f"{diff['label']}: {diff['field']}" if diff["label"] else diff["field"]
            evidence = f"{head}: PyTorch gives {diff['reference']}, your engine {diff['engine']}"
            scenario = r.id
            break
    return {
        "bug": name,
        "rule": rule or failed_rules[0],
        "text": sig["text"],
        "confidence": confidence,
        "scenario": scenario,
        "evidence": evidence,
    }


def sentence(diagnosis: dict) -> str:
    """One diagnosis as a student reads it."""
    return _("This looks like: {explanation} (rule {rule})").format(
        explanation=_(diagnosis["text"]), rule=diagnosis["rule"]
    )
