"""Child side of a fresh-process observation: `python -m autograder.observe_child --engine NAME
--scenario ID --seed N` prints that scenario's result as one JSON line."""

import argparse
import importlib
import json
import sys

from autograder.observe import TIME_LIMIT_S, observe_scenario
from autograder.scenarios import select


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT_S)
    args = parser.parse_args(argv)
    engine = importlib.import_module(args.engine)
    (sc,) = select(ids=[args.scenario])
    result = observe_scenario(engine, sc, args.seed, args.device, args.time_limit)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
