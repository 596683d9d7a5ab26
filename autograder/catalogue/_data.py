"""Values for scenarios: every number a scenario observes is drawn from the caller's rng."""


def floats(rng, shape, low=0.5, high=2.0) -> list:
    """Python floats (nested lists for a tuple shape), uniform in [low, high)."""
    return rng.uniform(low, high, size=shape).tolist()


def scalar(rng, low=0.5, high=2.0) -> float:
    return float(rng.uniform(low, high))


def ints(rng, shape, low=-5, high=6) -> list:
    return rng.integers(low, high, size=shape).tolist()
