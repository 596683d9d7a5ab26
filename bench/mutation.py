"""The hidden tests' mutation score: how many single-point mutants of the reference answers
lose points (`python -m bench.mutation [ASSIGNMENT ...]`; slow, never part of `make test`).

A mutant changes one thing inside one `### BEGIN SOLUTION` ... `### END SOLUTION` region of an
assignment's reference answer: an operator swapped (+ -, * /, == !=, < >=, > <=, is / is not,
in / not in, and / or), a condition negated, a `not` dropped, a constant changed (an int
plus one, True / False swapped) or a statement dropped. Every other answer stays right, as
in a class where one student made one slip. The mutant engine is graded as the hidden tests
grade it (every CPU rule of its assignment, its topic's scenarios, against PyTorch) on two
seeds; it is killed when any rule loses its points. Survivors are listed so that a person can
judge which are equivalent (no observable difference) and which show a missing scenario.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
import warnings
from pathlib import Path

SEEDS = (11, 12)
SWAPS = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.And: ast.Or, ast.Or: ast.And,
}  # fmt: skip
DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.Return, ast.Raise, ast.If)


def solution_lines(source: str) -> set[int]:
    """Line numbers (1-based) between nbgrader's solution markers."""
    inside, lines = False, set()
    for number, line in enumerate(source.splitlines(), 1):
        if "### BEGIN SOLUTION" in line:
            inside = True
        elif "### END SOLUTION" in line:
            inside = False
        elif inside:
            lines.add(number)
    return lines


def sites(tree: ast.AST, lines: set[int]) -> list[tuple]:
    """(node path, kind) of every mutation a region's code admits, in a stable order."""
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) not in lines:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in SWAPS:
            found.append((node, "op"))
        elif isinstance(node, ast.BoolOp) and type(node.op) in SWAPS:
            found.append((node, "op"))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in SWAPS:
            found.append((node, "compare"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            found.append((node, "drop not"))
        elif isinstance(node, (ast.If, ast.While)):
            found.append((node, "negate"))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            found.append((node, "constant"))
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and len(body) > 1:
                found += [
                    ((node, field, i), "drop")
                    for i, stmt in enumerate(body)
                    if isinstance(stmt, DROPPABLE) and stmt.lineno in lines
                ]
    return found


def mutate(source: str, index: int) -> tuple[str, str] | None:
    """(mutated source, what changed) for the index-th site of `source`'s solution regions."""
    tree = ast.parse(source)
    found = sites(tree, solution_lines(source))
    if index >= len(found):
        return None
    target, kind = found[index]
    if kind == "drop":
        node, field, i = target
        body = getattr(node, field)
        what = f"line {body[i].lineno}: dropped `{ast.unparse(body[i]).splitlines()[0]}`"
        body[i] = ast.copy_location(ast.Pass(), body[i])
    else:
        what = f"line {target.lineno}: {kind} in `{ast.unparse(target)[:80]}`"
        if kind == "op":
            target.op = SWAPS[type(target.op)]()
        elif kind == "compare":
            target.ops[0] = SWAPS[type(target.ops[0])]()
        elif kind == "drop not":  # `not x` becomes `not not x`, which is bool(x)
            target.operand = ast.UnaryOp(op=ast.Not(), operand=target.operand)
        elif kind == "negate":
            target.test = ast.UnaryOp(op=ast.Not(), operand=target.test)
        elif kind == "constant":
            value = target.value
            target.value = (not value) if isinstance(value, bool) else value + 1
    ast.fix_missing_locations(tree)
    return ast.unparse(tree), what


# Mutants a mutator of other kinds than these made, which kept full marks once (issue 29,
# item 10): each is graded with the generated ones, by name, and must lose points.
# (assignment, function, text, replacement, what)
REPORTED = (
    ("detach_numpy", "detach_", "    tensor._requires_grad = False\n", "",
     "detach_() leaves requires_grad on for a leaf"),
    ("detach_numpy", "from_numpy", "    if not isinstance(array, np.ndarray):\n"
     '        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")\n', "",
     "from_numpy accepts what is not an ndarray"),
    ("detach_numpy", "from_numpy", "s < 0 for s", "s <= 0 for s",
     "from_numpy refuses zero strides (< turned <=)"),
    ("rebuilding_tensors", "cat_backward", "        else:\n            out.append(None)\n", "",
     "cat_backward drops the None slot of an input that does not require grad"),
    ("inplace_versions", "check_inplace",
     "    if tensor.requires_grad and tensor.grad_fn is None:\n",
     "    if tensor.requires_grad or tensor.grad_fn is None:\n",
     "check_inplace: `and` turned `or` (a leaf that does not require grad, or a view of one)"),
    ("inplace_versions", "check_inplace",
     "        if tensor.requires_grad and base.grad_fn is None:\n",
     "        if tensor.requires_grad or base.grad_fn is None:\n",
     "check_inplace: `and` turned `or` (a view of a leaf that does not require grad)"),
)  # fmt: skip


def run_reported(names: list[str]) -> dict:
    """Each REPORTED mutant of the chosen assignments: killed or not, by its description."""
    import torch

    from autograder.scenarios import select
    from coursekit.edition import graded_functions, seam_source
    from coursekit.exercises.assignments import ASSIGNMENTS
    from coursekit.exercises.cells import without_markers

    results = {}
    for a in ASSIGNMENTS:
        mutants = [m for m in REPORTED if m[0] == a.name]
        if not mutants or (names and a.name not in names):
            continue
        ids = [sc.id for sc in select(rules=list(a.rules), topics=[a.topic], device="cpu")]
        references, unfit = _references(torch, a.name, ids)
        functions = graded_functions(seam_source(a.name))
        for _, function, text, replacement, what in mutants:
            original = without_markers(functions[function])
            if original.count(text) != 1:
                raise ValueError(f"{a.name}.{function}: {text!r} is not in its answer once")
            source = original.replace(text, replacement)
            results[what] = _loses_points(a.name, source, original, ids, references, unfit)
            print(f"{what}: {'killed' if results[what] else 'SURVIVED'}", file=sys.stderr)
    return results


def run(names: list[str]) -> dict:
    import torch

    from autograder.scenarios import select
    from coursekit.edition import graded_functions, seam_source
    from coursekit.exercises.assignments import ASSIGNMENTS
    from coursekit.exercises.cells import without_markers

    results = {}
    for a in ASSIGNMENTS:
        if names and a.name not in names:
            continue
        ids = [sc.id for sc in select(rules=list(a.rules), topics=[a.topic], device="cpu")]
        references, unfit = _references(torch, a.name, ids)
        killed, survivors, started = 0, [], time.monotonic()
        for function in graded_functions(seam_source(a.name)).values():
            original = without_markers(function)
            index = 0
            while (mutant := mutate(function, index)) is not None:
                index += 1
                source, what = mutant
                if _loses_points(a.name, source, original, ids, references, unfit):
                    killed += 1
                else:
                    survivors.append(what)
        total = killed + len(survivors)
        results[a.name] = {
            "mutants": total,
            "killed": killed,
            "score": killed / total if total else 1.0,
            "survivors": survivors,
            "seconds": round(time.monotonic() - started, 1),
        }
        print(f"{a.name}: {killed}/{total} killed", file=sys.stderr, flush=True)
    return results


def _references(torch, assignment: str, ids) -> tuple[dict, dict]:
    """PyTorch's observations on each seed (with the grader's time limit for the reference, so
    that a loaded machine cannot fail PyTorch itself), and per seed the scenarios that cannot
    tell a mutant apart: those the right answers already fail here (a once-only warning seen
    in this process rather than a fresh one)."""
    from autograder import compare, observe
    from autograder.check import REFERENCE_TIME_LIMIT_S
    from coursekit.exercises.planted import answered_engine

    references, unfit = {}, {}
    for seed in SEEDS:
        references[seed] = observe(torch, ids, seed=seed, time_limit=REFERENCE_TIME_LIMIT_S)
        failed = [i for i, sc in references[seed]["scenarios"].items() if sc["status"] != "ok"]
        if failed:
            raise RuntimeError(f"PyTorch itself failed {failed} on seed {seed}")
        with warnings.catch_warnings(), answered_engine(assignment) as engine:
            warnings.simplefilter("ignore")
            observed = _observe_as_graded(engine, ids, seed)
        unfit[seed] = {i for i, diffs in compare(references[seed], observed).items() if diffs}
    return references, unfit


# A mutant that loops forever loses its points; a slow machine must not make a right one lose.
ENGINE_TIME_LIMIT_S = 60.0


def _observe_as_graded(engine, ids, seed):
    """observe() as the hidden tests run it (coursekit.exercises.grading.check_seams): with
    the once-only warnings minigrad gave in this process forgotten, as in a fresh process."""
    from autograder import observe
    from minigrad import _warnings

    _warnings._already.clear()
    return observe(engine, ids, seed=seed, time_limit=ENGINE_TIME_LIMIT_S)


def _loses_points(assignment: str, source: str, original: str, ids, references, unfit) -> bool:
    from autograder import compare
    from coursekit.exercises.planted import answered_engine
    from coursekit.planted import Bug

    mutant = Bug(None, f"seams/{assignment}.py", original, source, "a mutant of the answer")
    try:
        with warnings.catch_warnings(), answered_engine(assignment, mutant) as engine:
            warnings.simplefilter("ignore")
            for seed, reference in references.items():
                observed = _observe_as_graded(engine, ids, seed)
                differences = compare(reference, observed)
                if any(diffs for i, diffs in differences.items() if i not in unfit[seed]):
                    return True
    except Exception:  # a mutant that cannot even be defined loses everything
        return True
    return False


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mutation", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="ASSIGNMENT")
    parser.add_argument("--out", type=Path, default=Path("bench/results/mutation.json"))
    args = parser.parse_args(argv)
    results = run(args.names)
    killed = sum(r["killed"] for r in results.values())
    total = sum(r["mutants"] for r in results.values())
    for name, r in results.items():
        print(f"{name:<20} {r['killed']:>4}/{r['mutants']:<4} killed  {100 * r['score']:5.1f}%")
        for what in r["survivors"]:
            print(f"    survived: {what}")
    print(f"{'all':<20} {killed:>4}/{total:<4} killed  {100 * killed / max(total, 1):5.1f}%")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
