"""`python -m bench.gpu`: runs the parts (see bench/gpu/__init__.py), writes one JSON file and
prints the `gpu-check:` line last."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.gpu import environment

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_JSON = ROOT / "build" / "gpu-check.json"
SCHEMA = "minigrad gpu-check 1"
PARTS = ("catalogue", "bench", "lectures", "sealed")
BUDGET_S = 400.0  # nothing is started past this (the check's promise is 8 minutes)
DRY_RUN_SIZES = {"mlp_batch": 64, "chain_steps": 200}


def run_part(part: str, device: str, seed: int, args, deadline: float) -> dict:
    dry = device == "cpu"
    if part == "catalogue":
        import minigrad
        from bench.gpu import catalogue

        return catalogue.run(minigrad, device, seed)
    if part == "bench":
        from bench.gpu import speed

        return speed.run(device, budget_s=0.5, **DRY_RUN_SIZES) if dry else speed.run(device)
    if part == "lectures":
        from bench.gpu import lectures

        # what is left of the budget, and a minute: the JSON must be written in 8 minutes
        left = max(deadline - time.monotonic(), 0) + 60
        return lectures.run(
            runner=args.lecture_runner, timeout_s=min(left, lectures.NOTEBOOK_TIMEOUT_S)
        )
    from bench.gpu import sealed

    return sealed.run(device, names=args.assignments, seed=seed, deadline=deadline)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu", description=__doc__)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where the results go")
    parser.add_argument("--parts", type=_names(PARTS), default=list(PARTS), metavar="A,B",
                        help=f"which parts, of {','.join(PARTS)} (default: all)")  # fmt: skip
    parser.add_argument("--assignments", type=lambda s: s.split(","), default=None,
                        metavar="A,B", help="the sealed part's (default: all)")  # fmt: skip
    parser.add_argument("--dry-run-on-cpu", action="store_true",
                        help="the same comparisons with device cpu: tests the plumbing here, "
                        "and is no GPU result")  # fmt: skip
    parser.add_argument("--lecture-runner", choices=("auto", "kernel", "plain"), default="auto")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--budget-s", type=float, default=BUDGET_S)
    args = parser.parse_args(argv)

    started = time.monotonic()
    env = environment.describe()
    no_gpu = environment.no_gpu_reason(env)
    seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    mode = "dry run on cpu" if args.dry_run_on_cpu else "no gpu" if no_gpu else "gpu"
    report = {"schema": SCHEMA, "mode": mode, "device": "cpu" if mode != "gpu" else "cuda",
              "seed": seed, "environment": env, "probes": {}, "parts": {}}  # fmt: skip
    if mode == "no gpu":
        report["parts"] = {p: {"status": f"not run: no GPU here ({no_gpu})"} for p in args.parts}
        return _finish(report, args.json, started, f"no GPU here ({no_gpu}): nothing run")
    if mode == "gpu":
        report["probes"] = {**environment.address_space_probes(), "sandbox": _sandbox_probe()}
    deadline = started + args.budget_s
    # the lectures run in their own processes: beside the sealed part (subprocesses too),
    # after the bench (its timings want a quiet machine)
    beside = [p for p in args.parts if p == "lectures" and "sealed" in args.parts]
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = {}
        for part in args.parts:
            if part == "sealed":
                pending.update({p: pool.submit(_timed, p, report, seed, args, deadline)
                                for p in beside})  # fmt: skip
            if part in beside:
                continue
            report["parts"][part] = _timed(part, report, seed, args, deadline)
            _write(report, args.json)  # a run stopped later still leaves this part
        for part, future in pending.items():
            report["parts"][part] = future.result()
    report["parts"] = {p: report["parts"][p] for p in args.parts}
    return _finish(report, args.json, started, _summary(report))


def _timed(part: str, report: dict, seed: int, args, deadline: float) -> dict:
    if time.monotonic() > deadline:
        return {"status": f"not run: the budget of {args.budget_s:g} s was spent"}
    began = time.monotonic()
    print(f"gpu-check: {part} ...", file=sys.stderr, flush=True)
    try:
        result = run_part(part, report["device"], seed, args, deadline)
    except ModuleNotFoundError as exc:
        result = {"status": f"not run: {exc.name} missing"}
    except Exception as exc:  # one part's failure hides no other
        result = {"status": f"error: {type(exc).__name__}: {exc}",
                  "traceback": traceback.format_exc()[-3000:]}  # fmt: skip
    result["seconds"] = round(time.monotonic() - began, 1)
    return result


def _sandbox_probe() -> dict:
    try:
        return environment.sandbox_probe()
    except Exception as exc:  # the probe's failure is a finding, not the check's end
        return {"status": f"fails: the probe raised {type(exc).__name__}: {exc}"[:500]}


def _names(allowed):
    def parse(text: str) -> list[str]:
        names = [n for n in text.split(",") if n]
        unknown = [n for n in names if n not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {unknown}; choose from {allowed}")
        return names

    return parse


def _summary(report: dict) -> str:
    env = report["environment"]
    if report["mode"] == "dry run on cpu":
        head = "DRY RUN on cpu, the CUDA selection on the CPU (plumbing only, no GPU result)"
    else:
        texts = "texts strict" if env["texts_strict"] else "texts reported, not failed"
        head = f"cuda on {env['gpu']}, torch {env['torch']}, cupy {env['cupy']} ({texts})"
    parts = [_part_text(name, data) for name, data in report["parts"].items()]
    probes = report["probes"].get("cupy_under_limits", {})
    if probes:  # the sealed child's limit first: where CUDA cannot start, no CUDA cell can pass
        parts.append("CuPy under " + ", ".join(
            f"{limit} {'ok' if said == 'computes' else 'FAILS'}" for limit, said in probes.items()
        ))  # fmt: skip
    sandbox = report["probes"].get("sandbox")
    if sandbox:
        said = (
            "ok"
            if sandbox["status"] == "computes"
            else sandbox["status"].replace("fails", "FAILS", 1)
        )
        parts.append(f"CuPy in the sealed sandbox {said}")
    return "; ".join([head, *parts])


def _part_text(name: str, data: dict) -> str:
    if data["status"] != "ran":
        return f"{name} {data['status']}"
    counts = data.get("counts", {})
    if name == "catalogue":
        version = f" (torch {data['reference']}'s, not CUDA's)" if counts["as on cpu"] else ""
        return (f"catalogue {counts['passed']}/{counts['total']} passed, "
                f"{counts['text only']} text only, {counts['as on cpu']} as on cpu{version}, "
                f"{counts['failed']} failed")  # fmt: skip
    if name == "sealed":
        version = (f", {counts['as_on_cpu']} others as on cpu (torch's, not CUDA's)"
                   if counts.get("as_on_cpu") else "")  # fmt: skip
        return f"sealed {counts['as_expected']}/{counts['total']} graded as expected{version}"
    if name == "lectures":
        others = ", ".join(f"{counts[k]} {k}" for k in ("skipped", "error", "not run", "warned"))
        return f"lecture GPU cells {counts['ran']}/{counts['total']} ran ({others})"
    ratios = ", ".join(
        f"{bench} {ratio:.2f}x" if ratio is not None else f"{bench} -"
        for bench, ratio in data["ratios"].items()
    )
    errors = (
        f" ({len(data['errors'])} failed: {', '.join(data['errors'])})" if data["errors"] else ""
    )
    return f"minigrad/torch {ratios}{errors}"


def _failed(report: dict) -> bool:
    for name, data in report["parts"].items():
        if data["status"] != "ran":
            return True
        counts = data.get("counts", {})
        if counts.get("failed") or counts.get("unexpected") or data.get("errors"):
            return True
        if name == "lectures" and counts["ran"] != counts["total"]:
            return True
    return False


def _write(report: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def _finish(report: dict, path: Path, started: float, text: str) -> int:
    report["seconds"] = round(time.monotonic() - started, 1)
    report["summary"] = f"gpu-check: {text}; {report['seconds']:g} s; {path}"
    report["passed"] = report["mode"] == "gpu" and not _failed(report)
    _write(report, path)
    print(report["summary"])
    # no GPU is no failure (CI runs it so); the dry run's figures are no GPU's verdict
    return 1 if report["mode"] == "gpu" and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
