"""The planted bugs' signatures (`make diagnoses`), and how often a diagnosis is right
(`python -m bench diagnoses`, or `python -m bench.diagnoses measure`).

build: every planted bug (tests/planted_bugs.py, coursekit/exercises/planted.py) is planted
alone into a copy of minigrad, observed on every CPU scenario on the first of TRAIN_SEEDS (on
the others, the scenarios it failed there) and compared with PyTorch 2.13's recorded
observations of those seeds (autograder/recorded.py: no PyTorch run); its differences become
its signature (autograder/diagnoses.py), written with a fingerprint of the bugs and the
catalogue so that a test sees when they are stale.

measure: the split. Signatures are computed from the training bugs on TRAIN_SEEDS only, then
judged on what they never saw, on HELD_OUT_SEEDS. A failure is diagnosable when a planted
bug among those the signatures know makes the same mistake: the same edit (the same code,
once both are written out by ast) or exactly the same differences on that seed (as keys,
over the scenarios run: no observation tells them apart). The top diagnosis is right when
it names such a bug, wrong when it names any other; no diagnosis is neither.
- held-out bugs (every HOLD_OUT-th bug by name), on the whole catalogue;
- the single-point mutants of the exercises' reference answers (bench/mutation.py) that lose
  points, graded as the hidden tests grade them (their assignment's scenarios only), against
  the signatures of all bugs; a mutant whose very edit a planted bug makes is not held out
  (its signature saw it on other seeds) and is counted apart;
- the training bugs on the held-out seeds, on the scenarios they failed on the first training
  seed (their own diagnosis is right).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path

from bench.results import Row

ROOT = Path(__file__).resolve().parents[1]
TRAIN_SEEDS = (1, 2, 3)
HELD_OUT_SEEDS = (4,)
HOLD_OUT = 5  # every 5th bug (sorted by name) is held out of the measured signatures
MUTANT_SEED = HELD_OUT_SEEDS[0]


def planted() -> dict:
    """bug id -> Bug: the engine's planted bugs, then the exercises' as `assignment.rule`."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from planted_bugs import BUGS
    finally:
        sys.path.remove(str(ROOT / "tests"))
    from coursekit.exercises.planted import BUGS as ANSWER_BUGS

    answers = {f"{a}.{bug.rule}": bug for a, bugs in ANSWER_BUGS.items() for bug in bugs}
    return {**BUGS, **answers}


def fingerprint() -> str:
    """What the signatures depend on: the bugs and the catalogue's scenarios."""
    digest = hashlib.sha256()
    for name, bug in sorted(planted().items()):
        digest.update(json.dumps([name, *bug]).encode())
    for path in sorted((ROOT / "autograder" / "catalogue").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


# -- observing planted engines (in worker processes) -----------------------------------------

_BASE: dict[int, set[str]] = {}  # per seed: the scenarios a copy of minigrad without a bug fails


def _engine_differences(engine, seed: int, ids) -> dict[str, list[dict]]:
    """Differences from PyTorch per scenario. A planted copy cannot be imported by name in a
    fresh interpreter, so the scenarios that want one (once-only warnings) run here, each
    after the copy's once-only warnings are forgotten, as a fresh process would have them."""
    from autograder import compare, observe, recorded
    from autograder.scenarios import REGISTRY

    fresh = [sid for sid in ids if REGISTRY[sid].fresh_process]
    groups = [[sid for sid in ids if sid not in fresh]] + [[sid] for sid in fresh]
    found = {}
    for group in filter(None, groups):
        engine._warnings._already.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            observed = observe(engine, group, seed=seed)
        found.update(compare(recorded.observations(group, seed, "cpu"), observed))
    return {sid: found[sid] for sid in ids}


def _bug_differences(job) -> tuple[str, dict]:
    """(bug id, {seed: {scenario id: differences}}) on every CPU scenario, or on `only`,
    leaving out the scenarios a copy of minigrad without the bug fails here too."""
    name, bug, seeds, only = job
    from autograder.scenarios import select
    from coursekit.planted import Bug, planted_engine

    every = [sc.id for sc in select(device="cpu")]
    ids = every if only is None else [sid for sid in every if sid in set(only)]
    if not ids:
        return name, {seed: {} for seed in seeds}
    for seed in seeds:
        if seed not in _BASE:
            line = (ROOT / "minigrad" / "__init__.py").read_text().splitlines(keepends=True)[0]
            clean = planted_engine(Bug(None, "__init__.py", line, line, "no bug"), "clean")
            found = _engine_differences(clean, seed, every)
            _BASE[seed] = {sid for sid, diffs in found.items() if diffs}
    engine = planted_engine(bug, name)
    out = {}
    for seed in seeds:
        found = _engine_differences(engine, seed, ids)
        out[seed] = {sid: d for sid, d in found.items() if d and sid not in _BASE[seed]}
    return name, out


def differences(bugs: dict, seeds, workers: int | None = None, only: dict | None = None) -> dict:
    """bug id -> {seed: {scenario id: differences}}, one worker per core; `only`: bug id ->
    the scenarios to observe (default: all)."""
    jobs = [(name, bug, tuple(seeds), (only or {}).get(name)) for name, bug in bugs.items()]
    workers = workers or os.cpu_count() or 1
    with ProcessPoolExecutor(workers) as pool:
        return dict(pool.map(_bug_differences, jobs, chunksize=2))


def training_differences(bugs: dict, workers=None, cache: Path | None = None) -> dict:
    """Every scenario on the first training seed; on the others, only the scenarios each bug
    failed there (what a bug breaks hardly depends on the values drawn, and the whole
    catalogue on every seed would take most of the time)."""
    first = _cached(cache, "first", lambda: differences(bugs, TRAIN_SEEDS[:1], workers))
    failed = {name: sorted(found[TRAIN_SEEDS[0]]) for name, found in first.items()}
    rest = _cached(cache, "rest", lambda: differences(bugs, TRAIN_SEEDS[1:], workers, failed))
    return _merged(first, rest)


# -- signatures ----------------------------------------------------------------------------


def signatures(bugs: dict, found: dict, seeds) -> dict:
    """bug id -> {"rule", "text", "scenarios": {sid: {"always": [...], "sometimes": [...]}}}."""
    from autograder.diagnoses import key

    out = {}
    for name, bug in bugs.items():
        per_seed = [
            {sid: {key(d) for d in diffs} for sid, diffs in found[name][seed].items()}
            for seed in seeds
        ]
        scenarios = {}
        for sid in sorted(set().union(*per_seed)):
            seen = [keys.get(sid, set()) for keys in per_seed]
            always = set.intersection(*seen)
            scenarios[sid] = {
                "always": sorted(always),
                "sometimes": sorted(set.union(*seen) - always),
            }
        # as written: a sentence may begin with code ("backward() replaces .grad ...")
        out[name] = {"rule": bug.rule, "file": bug.file, "text": bug.why, "scenarios": scenarios}
    return out


def build(path: Path | None = None, workers: int | None = None, cache: Path | None = None) -> Path:
    """Compute every planted bug's signature on TRAIN_SEEDS; write them beside the matcher."""
    from autograder import diagnoses

    path = path or diagnoses.DATA
    bugs = planted()
    found = training_differences(bugs, workers, cache)
    data = {
        "fingerprint": fingerprint(),
        "seeds": list(TRAIN_SEEDS),
        "bugs": signatures(bugs, found, TRAIN_SEEDS),
    }
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"))
    with gzip.GzipFile(path, "wb", mtime=0) as handle:  # mtime 0: the same bytes each time
        handle.write(payload.encode("utf-8"))
    diagnoses.load.cache_clear()
    return path


# -- measuring on what the signatures never saw ----------------------------------------------


def held_out(bugs: dict) -> list[str]:
    return sorted(bugs)[HOLD_OUT - 1 :: HOLD_OUT]


def same_edit(name: str, bugs: dict) -> set[str]:
    """The bugs that make the same edit as bug `name`: the same file, the same code once both
    are written out by ast (the engine's and the exercises' catalogues share a few)."""
    mine = _edited(bugs[name])
    return {
        other for other, bug in bugs.items() if bug.file == bugs[name].file and _edited(bug) == mine
    }


@cache
def _edited(bug) -> str:
    import ast

    from coursekit.planted import planted_in

    source = planted_in((ROOT / "minigrad" / bug.file).read_text(), bug)
    return "\n".join(
        line for line in ast.unparse(ast.parse(source)).splitlines() if line.strip() != "pass"
    )


def same_behaviour(found: dict, others: dict, seed: int, ran) -> set[str]:
    """The bugs among `others` ({bug id: {seed: {sid: differences}}}) whose differences on
    `seed`, over the scenarios `ran`, are the same as `found`'s (as keys): the same mistake as
    far as anything can observe, which a diagnosis then names rightly."""
    from autograder.diagnoses import key

    def shown(by_sid):
        return {sid: frozenset(map(key, d)) for sid, d in by_sid.items() if sid in ran and d}

    mine = shown(found)
    return {name for name, other in others.items() if shown(other[seed]) == mine}


def _results(ids, found: dict[str, list[dict]]):
    from autograder.report import ScenarioResult
    from autograder.scenarios import REGISTRY

    return [
        ScenarioResult(sid, REGISTRY[sid].rules, REGISTRY[sid].topic, REGISTRY[sid].lecture,
                       REGISTRY[sid].weight, "failed" if found.get(sid) else "passed",
                       found.get(sid, []))
        for sid in ids
    ]  # fmt: skip


class Tally:
    def __init__(self):
        self.failing = self.diagnosable = self.right = self.wrong = 0
        self.wrong_cases: list[str] = []
        self.missed: list[str] = []
        # the failures whose top diagnosis is not right (none, or another bug's), where they
        # come from (`place`: file, line, the mutation, the rules that lost points)
        self.undiagnosed: list[dict] = []

    def add(self, what: str, diagnoses: list[dict], right: set[str], place=None) -> None:
        self.failing += 1
        self.diagnosable += bool(right)
        top = diagnoses[0]["bug"] if diagnoses else None
        if top is None:
            if right:
                self.missed.append(what)
        elif top in right:
            self.right += 1
        else:
            self.wrong += 1
            self.wrong_cases.append(f"{what}: named {top}")
        if place is not None and (top is None or top not in right):
            self.undiagnosed.append({**place, "diagnosable": bool(right), "named": top})

    def merged(self, other: Tally) -> Tally:
        out = Tally()
        for field in ("failing", "diagnosable", "right", "wrong", "wrong_cases", "missed",
                      "undiagnosed"):  # fmt: skip
            setattr(out, field, getattr(self, field) + getattr(other, field))
        return out

    def figures(self) -> dict:
        return {
            "failing": self.failing,
            "diagnosable": self.diagnosable,
            "right": self.right,
            "wrong": self.wrong,
            "right_of_diagnosable": round(self.right / self.diagnosable, 3)
            if self.diagnosable
            else None,
            "wrong_of_failing": round(self.wrong / self.failing, 3) if self.failing else None,
            "wrong_cases": self.wrong_cases,
            "missed": self.missed,
            **({"undiagnosed": undiagnosed_counts(self.undiagnosed)} if self.undiagnosed else {}),
        }


def undiagnosed_counts(found: list[dict]) -> dict:
    """The failures no diagnosis names rightly, counted (no diagnosis, or a wrong one; among
    those without, whether a planted bug makes the same mistake) per file, and listed."""
    by_file: dict[str, int] = {}
    for f in found:
        by_file[f["file"]] = by_file.get(f["file"], 0) + 1
    return {
        "count": len(found),
        "no_diagnosis": sum(f["named"] is None for f in found),
        "no_planted_bug_alike": sum(f["named"] is None and not f["diagnosable"] for f in found),
        "named_another_bug": sum(f["named"] is not None for f in found),
        "by_file": dict(sorted(by_file.items())),
        "list": found,
    }


def measure_bugs(bugs: dict, found: dict) -> dict:
    """Held-out bugs and the training bugs, on held-out seeds, against training signatures."""
    from autograder.diagnoses import diagnose
    from autograder.scenarios import select

    out_names = held_out(bugs)
    training = {n: b for n, b in bugs.items() if n not in out_names}
    sigs = signatures(training, found, TRAIN_SEEDS)
    ids = [sc.id for sc in select(device="cpu")]
    unseen, seen = Tally(), Tally()
    for name in bugs:
        for seed in HELD_OUT_SEEDS:
            if not found[name][seed]:
                continue  # this bug shows nothing on this seed: nothing to diagnose
            result = diagnose(_results(ids, found[name][seed]), sigs)
            twins = (same_edit(name, bugs) - {name}) & training.keys()
            twins |= same_behaviour(
                found[name][seed], {n: found[n] for n in training}, seed, set(ids)
            )
            if name in out_names:
                unseen.add(f"{name} seed {seed}", result, twins)
            else:
                seen.add(f"{name} seed {seed}", result, {name} | twins)
    return {"held_out_bugs": out_names, "unseen": unseen, "seen": seen}


def _mutants_of(assignment_name: str) -> list[tuple]:
    """(description, {scenario id: differences}, ids, mutated line) for each killed mutant."""
    import torch  # noqa: F401  (bench.mutation's helpers expect it importable)

    from autograder import compare, recorded
    from autograder.scenarios import select
    from bench.mutation import _observe_as_graded, mutate
    from coursekit.edition import graded_functions, seam_source
    from coursekit.exercises.assignments import BY_NAME
    from coursekit.exercises.cells import without_markers
    from coursekit.exercises.planted import answered_engine
    from coursekit.planted import Bug

    a = BY_NAME[assignment_name]
    ids = [sc.id for sc in select(rules=list(a.rules), topics=[a.topic], device="cpu")]
    reference = recorded.observations(ids, MUTANT_SEED, "cpu")
    with warnings.catch_warnings(), answered_engine(a.name) as engine:
        warnings.simplefilter("ignore")
        base = compare(reference, _observe_as_graded(engine, ids, MUTANT_SEED))
    unfit = {sid for sid, d in base.items() if d}
    out = []
    for function in graded_functions(seam_source(a.name)).values():
        original = without_markers(function)
        index = 0
        while (mutant := mutate(function, index)) is not None:
            index += 1
            source, what = mutant
            number = int(what.split(":")[0].removeprefix("line "))
            line = function.splitlines()[number - 1]
            bug = Bug(None, f"seams/{a.name}.py", original, source, "a mutant")
            try:
                with warnings.catch_warnings(), answered_engine(a.name, bug) as engine:
                    warnings.simplefilter("ignore")
                    observed = _observe_as_graded(engine, ids, MUTANT_SEED)
            except Exception:  # noqa: BLE001  (a mutant that cannot be defined: nothing to match)
                continue
            found = {
                sid: d for sid, d in compare(reference, observed).items() if d and sid not in unfit
            }
            if found:
                ran = [sid for sid in ids if sid not in unfit]
                out.append((f"{a.name}: {what}", found, ran, line))
    return out


def mutant_differences(workers: int | None = None) -> dict:
    """assignment -> [(description, differences, scenarios run, mutated line)]."""
    from coursekit.exercises.assignments import ASSIGNMENTS

    names = [a.name for a in ASSIGNMENTS]
    with ProcessPoolExecutor(workers or os.cpu_count() or 1) as pool:
        return dict(zip(names, pool.map(_mutants_of, names), strict=True))


def measure_mutants(bugs: dict, sigs: dict, mutants: dict, found: dict) -> tuple[Tally, Tally]:
    """Each killed mutant: diagnosable when a planted bug makes the same edit (the same
    source, once both are written out by ast) or behaves exactly as the mutant does
    (`found`: the bugs' differences on MUTANT_SEED); right when the top diagnosis is one.
    (held out, seen): a mutant whose very edit a planted bug in `sigs` makes was seen, on
    other seeds, when the signatures were computed: it is not held out."""
    from autograder.diagnoses import diagnose
    from autograder.scenarios import REGISTRY
    from coursekit.exercises.assignments import BY_NAME

    edits, places = _same_edits(bugs), mutant_places()
    held, seen = Tally(), Tally()
    for assignment, found_list in mutants.items():
        for what, differences, ran, _ in found_list:
            right = edits.get(what, set()) | same_behaviour(
                differences, found, MUTANT_SEED, set(ran)
            )
            # the rules whose test cells lost points (the assignment's own, where any did)
            lost = {rule for sid in differences for rule in REGISTRY[sid].rules}
            place = {**places[what], "rules": sorted(lost & set(BY_NAME[assignment].rules) or lost)}
            tally = seen if edits.get(what, set()) & sigs.keys() else held
            tally.add(what, diagnose(_results(ran, differences), sigs), right, place)
    return held, seen


def _answer_mutants():
    """(assignment, function name, its first line in its seam file, its source as written,
    index, (mutated source, what changed)) for every mutant of every reference answer."""
    from bench.mutation import mutate
    from coursekit.edition import _function_spans, graded_functions, seam_source
    from coursekit.exercises.assignments import ASSIGNMENTS

    for a in ASSIGNMENTS:
        source = seam_source(a.name)
        spans = _function_spans(source)
        for name, function in graded_functions(source).items():
            index = 0
            while (mutant := mutate(function, index)) is not None:
                yield a.name, name, spans[name][0], function, mutant
                index += 1


def mutant_places() -> dict[str, dict]:
    """Mutant description -> {"file", "line" (in minigrad/), "function", "mutation"}."""
    out = {}
    for assignment, name, first, _, (_, what) in _answer_mutants():
        number, mutation = what.split(": ", 1)
        out[f"{assignment}: {what}"] = {
            "file": f"seams/{assignment}.py",
            "line": first + int(number.removeprefix("line ")),
            "function": name,
            "mutation": mutation,
        }
    return out


def _same_edits(bugs: dict) -> dict[str, set[str]]:
    """Mutant description -> the planted bugs whose edit of the same answer gives the same
    code (a dropped statement is a `pass` in a mutant, nothing in a bug: both ignored)."""
    import ast

    from coursekit.exercises.cells import without_markers
    from coursekit.planted import planted_in

    def written(source):
        try:
            lines = ast.unparse(ast.parse(source)).splitlines()
        except SyntaxError:
            return None
        return "\n".join(line for line in lines if line.strip() != "pass")

    @cache
    def planted(assignment: str, function: str) -> dict:
        original = without_markers(function)
        out = {}
        for name, bug in bugs.items():
            if bug.file == f"seams/{assignment}.py" and bug.text in original + "\n":
                out.setdefault(written(planted_in(original, bug)), set()).add(name)
        return out

    out: dict[str, set[str]] = {}
    for assignment, _, _, function, (source, what) in _answer_mutants():
        same = planted(assignment, function).get(written(source), set())
        out.setdefault(f"{assignment}: {what}", set()).update(same)
    return out


def _merged(*founds: dict) -> dict:
    return {name: {seed: d for f in founds for seed, d in f[name].items()} for name in founds[0]}


def _cached(cache: Path | None, what: str, compute):
    """Observations kept in `cache` (a folder) between runs on the same bugs and catalogue."""
    if cache is None:
        return compute()
    path = cache / f"{what}-{fingerprint()}.json"
    if path.is_file():
        data = json.loads(path.read_text())
        if what == "mutants":
            return data
        return {k: {int(s): d for s, d in v.items()} for k, v in data.items()}
    found = compute()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found))
    return found


def measure(workers: int | None = None, cache: Path | None = None) -> dict:
    started = time.monotonic()
    bugs = planted()
    train = training_differences(bugs, workers, cache)
    unseen = {name: bugs[name] for name in held_out(bugs)}
    seen = {name: bug for name, bug in bugs.items() if name not in unseen}
    failed = {name: sorted(train[name][TRAIN_SEEDS[0]]) for name in seen}
    found = _merged(
        train,
        {
            **_cached(cache, "held", lambda: differences(unseen, HELD_OUT_SEEDS, workers)),
            **_cached(cache, "again", lambda: differences(seen, HELD_OUT_SEEDS, workers, failed)),
        },
    )
    measured = measure_bugs(bugs, found)
    observed = _cached(cache, "mutants", lambda: mutant_differences(workers))
    mutants, seen = measure_mutants(bugs, signatures(bugs, found, TRAIN_SEEDS), observed, found)
    held = measured["unseen"].merged(mutants)
    return {
        "split": {
            "signature_seeds": list(TRAIN_SEEDS),
            "held_out_seeds": list(HELD_OUT_SEEDS),
            "mutant_seed": MUTANT_SEED,
            "held_out_bugs": measured["held_out_bugs"],
            "training_bugs": len(bugs) - len(measured["held_out_bugs"]),
        },
        "held_out (unseen bugs + mutants)": held.figures(),
        "unseen bugs": measured["unseen"].figures(),
        "mutants": mutants.figures(),
        "mutants a planted bug makes (not held out)": seen.figures(),
        "training bugs on held-out seeds": measured["seen"].figures(),
        "killed mutants": mutants.merged(seen).figures(),
        "seconds": round(time.monotonic() - started, 1),
    }


def undiagnosed_text(figures: dict) -> str:
    """The killed mutants no diagnosis names rightly, a line each, then their counts."""
    found = figures.get("undiagnosed")
    if not found:
        return f"every one of the {figures['failing']} killed mutants is diagnosed rightly"
    lines = [
        f"{f['file']}:{f['line']} ({f['function']}) {f['mutation']}: lost "
        f"{', '.join(f['rules'])}; "
        + (f"named {f['named']}" if f["named"] else "no diagnosis")
        + ("" if f["diagnosable"] else ", no planted bug alike")
        for f in found["list"]
    ]
    lines.append(
        f"killed {figures['failing']}, diagnosed rightly {figures['right']}, not: "
        f"{found['count']} ({found['no_diagnosis']} no diagnosis, of which "
        f"{found['no_planted_bug_alike']} with no planted bug alike; "
        f"{found['named_another_bug']} named another bug); by file: {found['by_file']}"
    )
    return "\n".join(lines)


def run(minigrad=None) -> list[Row]:
    """`python -m bench diagnoses`: the figures as rows (targets: issue 34)."""
    figures = measure()
    rows = []
    for case in ("held_out (unseen bugs + mutants)", "unseen bugs", "mutants",
                 "mutants a planted bug makes (not held out)",
                 "training bugs on held-out seeds"):  # fmt: skip
        f = figures[case]
        right, wrong = f["right_of_diagnosable"], f["wrong_of_failing"]
        row = Row("diagnoses", case, "minigrad", extra=f)
        row.note = (
            f"{f['failing']} failing, {f['diagnosable']} diagnosable: top right {f['right']} "
            f"({right}), wrong {f['wrong']} ({wrong})"
        )
        if case.startswith("held_out"):
            row.target = "right >= 0.80 of diagnosable, wrong <= 0.05 of failing"
            row.target_met = (right or 0) >= 0.8 and (wrong or 0) <= 0.05
        rows.append(row)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.diagnoses", description=__doc__)
    parser.add_argument("action", choices=("build", "measure"))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--cache", type=Path, default=None, help="keep observations here")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "diagnoses.json")
    args = parser.parse_args(argv)
    if args.action == "build":
        started = time.monotonic()
        path = build(workers=args.workers, cache=args.cache)
        print(f"written {path} in {time.monotonic() - started:.0f} s")
        return 0
    figures = measure(args.workers, args.cache)
    print(json.dumps(figures, indent=1))
    print(undiagnosed_text(figures["killed mutants"]), file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
