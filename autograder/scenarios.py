"""The scenario registry: every catalogue scenario is registered here by the @scenario decorator.

A scenario is a function `f(T, record, rng)` written once against PyTorch's API. It is run with
`T = torch` and with `T = <engine>`, and the two observation sets are compared.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from functools import cached_property

from autograder.rules import RULES

TOPICS = ("basics", "leaf", "numpy", "inplace", "rebuild", "devices", "values")
DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class Scenario:
    id: str
    rules: tuple[str, ...]
    topic: str
    lecture: str
    weight: float
    devices: tuple[str, ...]
    declared_needs: tuple[str, ...] | None  # as the decorator got it (None: read the source)
    fresh_process: bool  # observe it in a fresh interpreter (once-only warnings)
    fn: object

    @cached_property
    def needs(self) -> tuple[str, ...]:
        """Engine names the scenario uses, e.g. "tensor", "nn.Parameter". Read from the source
        when first asked, not at registration: parsing all of them cost every sealed run about
        0.3 s of its start."""
        if self.declared_needs is not None:
            return self.declared_needs
        return engine_names_used(self.fn)

    @property
    def source_file(self) -> str:
        return inspect.getsourcefile(self.fn) or "?"


REGISTRY: dict[str, Scenario] = {}


def scenario(
    *,
    id: str,
    rules,
    topic: str,
    lecture: str,
    weight: float = 1,
    devices=DEVICES,
    needs=None,
    fresh_process: bool = False,
):
    """Register `fn(T, record, rng)` in the catalogue.

    `needs` defaults to every `T.<name>` chain the function's source uses; declare it when a
    scenario reaches engine names another way. `fresh_process=True` makes observe() run the
    scenario in a new interpreter, the only place where a once-only warning shows its first
    occurrence.
    """
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}; expected one of {TOPICS}")
    if not rules or any(r not in RULES for r in rules):
        raise ValueError(f"scenario {id!r}: rules {rules!r} must be autograder/rules.py's ids")
    unknown = [d for d in devices if d not in DEVICES]
    if unknown or not devices:
        raise ValueError(f"scenario {id!r}: bad devices {devices!r}")

    def register(fn):
        if id in REGISTRY:
            raise ValueError(f"duplicate scenario id {id!r}")
        REGISTRY[id] = Scenario(
            id=id,
            rules=tuple(rules),
            topic=topic,
            lecture=lecture,
            weight=float(weight),
            devices=tuple(devices),
            declared_needs=tuple(needs) if needs is not None else None,
            fresh_process=fresh_process,
            fn=fn,
        )
        return fn

    return register


def engine_names_used(fn) -> tuple[str, ...]:
    """The dotted names `T.a.b` read from the engine parameter (the first one) in fn's source."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):  # no source (a REPL): nothing to pre-check
        return ()
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    if not functions or not functions[0].args.args:
        return ()
    func = functions[0]
    engine_param = func.args.args[0].arg
    names = set()
    for node in ast.walk(func):
        if not isinstance(node, ast.Attribute):
            continue
        parts = []
        inner = node
        while isinstance(inner, ast.Attribute):
            parts.append(inner.attr)
            inner = inner.value
        if isinstance(inner, ast.Name) and inner.id == engine_param:
            names.add(".".join(reversed(parts)))
    # keep only maximal chains: "nn.Parameter" makes "nn" redundant
    return tuple(sorted(n for n in names if not any(m.startswith(n + ".") for m in names)))


def known_needs(needs: dict) -> None:
    """Take scenarios' needs as worked out elsewhere ({id: [names]}): a sealed run's parent
    has them cached, while a process forked per scenario would parse each one's source
    again (about 4.5 ms a scenario)."""
    for scenario_id, names in needs.items():
        if scenario_id in REGISTRY:
            REGISTRY[scenario_id].__dict__["needs"] = tuple(names)  # the cached_property's


def load_catalogue() -> dict[str, Scenario]:
    """Import every topic module once and return the registry."""
    from autograder import catalogue  # noqa: F401  (importing registers the scenarios)

    return REGISTRY


def select(rules=None, topics=None, ids=None, device=None) -> list[Scenario]:
    """Scenarios matching all given filters, in catalogue order."""
    load_catalogue()
    chosen = []
    for sc in REGISTRY.values():
        if ids is not None and sc.id not in ids:
            continue
        if topics is not None and sc.topic not in topics:
            continue
        if rules is not None and not set(sc.rules) & set(rules):
            continue
        if device is not None and device not in sc.devices:
            continue
        chosen.append(sc)
    if ids is not None:
        unknown = sorted(set(ids) - set(REGISTRY))
        if unknown:
            raise KeyError(f"unknown scenario ids: {unknown}")
    return chosen
