"""PyTorch's observations of the catalogue, recorded, for checking where PyTorch is absent.

minigrad itself needs only NumPy; a learner without PyTorch 2.13 (none installed, or Colab's
own release) can still check their engine against what PyTorch 2.13 did on the same values:
`make record` (autograder.recorded.record()) observes every CPU scenario on live PyTorch for
each of SEEDS and writes one gzip'd JSON file beside this module, which the package ships.
`check()` uses it when the live reference is not PyTorch 2.13 and says so in the report.
Grading never does: the sealed run compares with live, pinned PyTorch on fresh seeds, which
nobody could have read beforehand.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

RECORDING = Path(__file__).with_name("recorded_torch_cpu.json.gz")
# The visible checks' public seed first, then a few more for a self-paced learner's reruns.
SEEDS = (2024, 1, 2, 3, 4, 5, 6, 7)


class NoRecording(LookupError):
    """No recorded observation for what was asked (another seed, device or scenario)."""


@lru_cache(maxsize=1)
def load() -> dict:
    """{"torch": version, "seeds": {seed: observations}}, as recorded."""
    with gzip.open(RECORDING, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    data["seeds"] = {int(seed): run for seed, run in data["seeds"].items()}
    return data


def available() -> bool:
    return RECORDING.is_file()


def observations(scenario_ids, seed: int, device: str) -> dict:
    """The recorded observations of `scenario_ids` on `seed`, shaped as observe() returns."""
    if device != "cpu":
        raise NoRecording("PyTorch's CUDA side is not recorded: it needs a GPU and live PyTorch")
    data = load()
    if seed not in data["seeds"]:
        seeds = ", ".join(map(str, sorted(data["seeds"])))
        raise NoRecording(f"seed {seed} is not recorded (recorded seeds: {seeds})")
    run = data["seeds"][seed]
    missing = [sid for sid in scenario_ids if sid not in run["scenarios"]]
    if missing:
        raise NoRecording(
            f"scenarios recorded before they were added: {', '.join(missing[:5])}; run "
            "`make record` with PyTorch 2.13 installed"
        )
    return {**run, "scenarios": {sid: run["scenarios"][sid] for sid in scenario_ids}}


def record(path: Path = RECORDING, seeds=SEEDS) -> Path:
    """Observe every CPU scenario on live PyTorch for each seed; write them to `path`."""
    import torch

    from autograder.check import REFERENCE_TIME_LIMIT_S, REFERENCE_VERSION, is_reference_release
    from autograder.observe import observe
    from autograder.scenarios import select

    if not is_reference_release(torch.__version__):
        raise SystemExit(f"record with PyTorch {REFERENCE_VERSION}, not {torch.__version__}")
    ids = [sc.id for sc in select(device="cpu")]
    runs = {}
    for seed in seeds:
        run = observe(torch, ids, seed=seed, device="cpu", time_limit=REFERENCE_TIME_LIMIT_S)
        for result in run["scenarios"].values():
            result.pop("seconds", None)  # timings vary from run to run: not an observation
        runs[str(seed)] = run
    payload = json.dumps({"torch": torch.__version__, "seeds": runs}, sort_keys=True)
    with gzip.GzipFile(path, "wb", mtime=0) as handle:  # mtime 0: the same bytes each time
        handle.write(payload.encode("utf-8"))
    load.cache_clear()
    return path
