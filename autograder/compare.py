"""Decide whether an engine's observations match PyTorch's.

compare(reference, engine) takes two results of observe() and returns, for every scenario of
the reference, the list of differences (empty when the engine matched). A difference is a
plain dict: label (the observation), field (what part of it), reference and engine (texts a
student can read), and summary (one line combining them).
"""

from __future__ import annotations

import copy
import re

import numpy as np

# (rtol, atol) per (device, dtype), the contract's (docs/RULES.md is written from it):
# float64 tighter than float32; half precision and CUDA kernels (other summation orders,
# fused operations) looser.
TOLERANCES = {
    ("cpu", "float16"): (1e-3, 1e-5),
    ("cpu", "float32"): (1e-5, 1e-6),
    ("cpu", "float64"): (1e-10, 1e-12),
    ("cuda", "float16"): (1e-2, 1e-4),
    ("cuda", "float32"): (1e-4, 1e-5),
    ("cuda", "float64"): (1e-9, 1e-11),
}
EXACT = (0.0, 0.0)  # integers and booleans
PYTHON_FLOAT = (
    "float32"  # Python floats read off tensors (item(), float()) mostly come from float32
)

SNAPSHOT_FIELDS = ("shape", "dtype", "device", "requires_grad", "is_leaf", "grad_fn")
SNAPSHOT_FIELDS_AFTER = ("retains_grad", "version")
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|nan|inf")
_MISSING_ATTRIBUTE = re.compile(r"'(\w+)' object has no attribute '(\w+)'")


def tolerance(dtype: str, device: str = "cpu") -> tuple[float, float]:
    return TOLERANCES.get((device, dtype), EXACT)


def compare(reference: dict, engine: dict) -> dict[str, list[dict]]:
    """Differences per scenario id (every scenario of the reference appears)."""
    device = reference.get("device", "cpu")
    out = {}
    for sid, ref in reference["scenarios"].items():
        eng = engine["scenarios"].get(sid)
        out[sid] = compare_scenario(ref, eng, device)
    return out


def compare_scenario(ref: dict, eng: dict | None, device: str = "cpu") -> list[dict]:
    if ref["status"] != "ok":
        # the catalogue's own bug (or a reference run problem): never a pass
        return [_diff(None, "reference run", _status_text(ref), "(not compared)")]
    if eng is None:
        return [_diff(None, "scenario", "observed", "not observed")]
    if eng["status"] == "not_implemented":
        names = ", ".join(eng["missing"])
        return [_diff(None, "engine names", "present", f"not implemented: {names}")]
    diffs = []
    engine_obs = {o["label"]: o for o in eng["observations"]}
    for r in ref["observations"]:
        e = engine_obs.get(r["label"])
        if e is None:
            if eng["status"] == "ok":
                diffs.append(_diff(r["label"], "observation", "recorded", "never recorded"))
            break  # the engine stopped here: the crash below explains the rest
        diffs.extend(compare_observation(r, e, device))
    if eng["status"] != "ok":
        diffs.append(_diff(None, "scenario run", "ran to the end", _status_text(eng)))
    return diffs


def compare_observation(r: dict, e: dict, device: str = "cpu") -> list[dict]:
    label = r["label"]
    diffs = []
    rr, er = r.get("raised"), e.get("raised")
    if rr or er:
        if not (rr and er):
            diffs.append(
                _diff(
                    label, "outcome", _outcome_text(rr, r["value"]), _outcome_text(er, e["value"])
                )
            )
        elif rr["type"] != er["type"] or (
            r.get("check_message", True) and rr["message"] != er["message"]
        ):
            diffs.append(_diff(label, "exception", _raised_text(rr), _raised_text(er)))
    else:
        for field, rv, ev in diff_values(r["value"], e["value"], device):
            diffs.append(_diff(label, field, rv, ev))
    rw = sorted((w["category"], w["message"]) for w in r.get("warnings", []))
    ew = sorted((w["category"], w["message"]) for w in e.get("warnings", []))
    if rw != ew:
        diffs.append(_diff(label, "warnings", _warnings_text(rw), _warnings_text(ew)))
    return diffs


def diff_values(r, e, device: str = "cpu", path: str = "") -> list[tuple[str, str, str]]:
    """(field, reference text, engine text) for every mismatch between two encoded values."""
    where = path or "value"
    if isinstance(r, dict) and "tensor" in r:
        if not (isinstance(e, dict) and "tensor" in e):
            return [(where, describe(r), describe(e))]
        return _diff_snapshots(r["tensor"], e["tensor"], device, path)
    if isinstance(r, dict) and "ndarray" in r:
        if not (isinstance(e, dict) and "ndarray" in e):
            return [(where, describe(r), describe(e))]
        ra, ea = r["ndarray"], e["ndarray"]
        out = [
            (f"{path}{field}" if path else field, _text(ra[field]), _text(ea[field]))
            for field in ("dtype", "shape")
            if ra[field] != ea[field]
        ]
        if not out and not values_close(ra["values"], ea["values"], ra["dtype"], device):
            out.append(
                (f"{path}values" if path else "values", _text(ra["values"]), _text(ea["values"]))
            )
        return out
    if isinstance(r, list):
        if not isinstance(e, list) or len(e) != len(r):
            return [(where, describe(r), describe(e))]
        out = []
        for i, (ri, ei) in enumerate(zip(r, e, strict=True)):
            out.extend(diff_values(ri, ei, device, f"{path}[{i}]."))
        return [(f.rstrip("."), rv, ev) for f, rv, ev in out]
    if isinstance(r, float) and type(e) is float:
        ok = values_close(r, e, PYTHON_FLOAT, device)
        return [] if ok else [(where, _text(r), _text(e))]
    if isinstance(r, dict) and "numpy_scalar" in r and isinstance(e, dict) and "numpy_scalar" in e:
        if r["numpy_scalar"] == e["numpy_scalar"] and values_close(
            r["value"], e["value"], r["numpy_scalar"], device
        ):
            return []
        return [(where, describe(r), describe(e))]
    if type(r) is not type(e) or r != e:
        return [(where, describe(r), describe(e))]
    return []


def _diff_snapshots(r: dict, e: dict, device: str, path: str) -> list[tuple[str, str, str]]:
    out = []
    for field in SNAPSHOT_FIELDS:
        if r.get(field) != e.get(field):
            out.append((f"{path}{field}", _text(r.get(field)), _text(e.get(field))))
    same_layout = r.get("shape") == e.get("shape") and r.get("dtype") == e.get("dtype")
    if same_layout and not values_close(r["values"], e.get("values"), r["dtype"], device):
        shown = (r.get("repr"), e.get("repr"))
        if all(isinstance(x, str) for x in shown) and shown[0] != shown[1]:
            # the numbers as PyTorch prints them, where printing shows the difference
            out.append((f"{path}values", _printed(shown[0]), _printed(shown[1])))
        else:
            out.append((f"{path}values", _text(r["values"]), _text(e.get("values"))))
        same_layout = False  # the repr differs too: saying so again would be noise
    for field in SNAPSHOT_FIELDS_AFTER:
        if r.get(field) != e.get(field):
            out.append((f"{path}{field}", _text(r.get(field)), _text(e.get(field))))
    if same_layout and not repr_close(r["repr"], e.get("repr"), r["dtype"], device):
        out.append((f"{path}repr", _text(r["repr"]), _text(e.get("repr"))))
    return out


def values_close(r, e, dtype: str, device: str = "cpu") -> bool:
    """Same shape and allclose under the (device, dtype) tolerance; NaN equals NaN."""
    try:
        ra = np.asarray(r, dtype=np.float64)
        ea = np.asarray(e, dtype=np.float64)
    except (TypeError, ValueError):
        return r == e
    if ra.shape != ea.shape:
        return False
    rtol, atol = tolerance(dtype, device)
    return bool(np.allclose(ea, ra, rtol=rtol, atol=atol, equal_nan=True))


def repr_close(r: str, e, dtype: str, device: str = "cpu") -> bool:
    """Equal reprs, except that a printed float may differ within the value tolerance (or by
    one unit in its last digit): the values already agree, and two engines may round a float
    result, or a sum that cancels to almost nothing, differently. The layout (brackets,
    widths, notation, suffixes) must still be identical."""
    if r == e:
        return True
    if not isinstance(e, str) or _NUMBER.sub("#", r) != _NUMBER.sub("#", e):
        return False
    if not dtype.startswith("float"):
        return False
    for rn, en in zip(_NUMBER.findall(r), _NUMBER.findall(e), strict=True):
        if rn == en:
            continue
        if len(rn) != len(en) or "nan" in (rn, en) or "inf" in (rn, en):
            return False
        mantissa = rn.split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        scale = 10 ** int(rn.split("e")[1]) if "e" in rn else 1
        rtol, atol = tolerance(dtype, device)
        allowed = max(1.01 * 10.0**-decimals * scale, atol + rtol * abs(float(rn)))
        if abs(float(rn) - float(en)) > allowed:
            return False
    return True


# -- texts ---------------------------------------------------------------------------------


def describe(x) -> str:
    """A short readable text for an encoded value."""
    if isinstance(x, dict):
        if "tensor" in x:
            t = x["tensor"]
            flags = ", ".join(
                f"{k}={_text(t.get(k))}" for k in ("requires_grad", "is_leaf", "grad_fn")
            )
            shown = t.get("repr")
            shown = _printed(shown) if isinstance(shown, str) else _text(shown)
            return f"{shown} ({flags})"  # the tensor as Python prints it, unquoted
        if "ndarray" in x:
            a = x["ndarray"]
            return f"ndarray(dtype={a['dtype']}, shape={a['shape']}, values={_text(a['values'])})"
        if "numpy_scalar" in x:
            return f"numpy.{x['numpy_scalar']}({x['value']!r})"
        if "dtype" in x:
            return f"torch.{x['dtype']}"
        if "device" in x:
            return f"device({x['device']!r})"
        if "node" in x:
            return f"<{x['node']}>"
        if "object" in x:
            return f"a {x['object']} object"
        if "error" in x:
            return f"reading it raised {x['error']}"
    if isinstance(x, list):
        return "[" + ", ".join(describe(v) for v in x) + "]"
    return _text(x)


def _printed(text: str, limit: int = 300) -> str:
    """A tensor's repr as it prints (unquoted)."""
    return text if len(text) <= limit else text[:limit] + " ..."


def _text(x, limit: int = 300) -> str:
    if isinstance(x, dict) and "error" in x:
        return f"reading it raised {x['error']}"
    text = repr(x)  # as Python prints it: None, True, False (never JSON's null, true, false)
    return text if len(text) <= limit else text[:limit] + " ..."


def _raised_text(raised: dict) -> str:
    message = raised["message"]
    text = f"raised {raised['type']}: {message}" if message else f"raised {raised['type']}"
    hint = _MISSING_ATTRIBUTE.search(raised["message"])
    if raised["type"] == "AttributeError" and hint and hint.group(1) != "NoneType":
        text += f" (not implemented: {hint.group(1)}.{hint.group(2)})"
    return text


def _outcome_text(raised, value) -> str:
    return _raised_text(raised) if raised else f"returned {describe(value)}"


def _warnings_text(warns) -> str:
    if not warns:
        return "no warning"
    return "; ".join(f"{cat}: {msg}" for cat, msg in warns)


def _status_text(result: dict) -> str:
    err = result.get("error", {})
    where = f" at {err['where']}" if err.get("where") else ""
    if result["status"] == "timeout":
        return f"ran past the time limit ({err.get('message', '')}){where}"
    raised = {"type": err.get("type", "?"), "message": err.get("message", "")}
    return f"stopped: {_raised_text(raised)}{where}"


# -- wording apart ------------------------------------------------------------------------


def without_texts(run: dict) -> dict:
    """A copy of observe()'s result with every text a PyTorch release may word differently
    blanked: exception and warning messages (types and categories kept), what reading an
    attribute raised (its type kept), a stopped run's message, and tensors' reprs. Two such
    copies that compare equal differ, if at all, only in wording."""
    return {**run, "scenarios": {sid: wording_removed(r) for sid, r in run["scenarios"].items()}}


def wording_removed(result: dict) -> dict:
    """without_texts for one scenario's result."""
    result = copy.deepcopy(result)
    if isinstance(result.get("error"), dict):
        result["error"]["message"] = ""
    for observation in result.get("observations", []):
        if observation.get("raised"):
            observation["raised"]["message"] = ""
        for warning in observation.get("warnings", []):
            warning["message"] = ""
        observation["value"] = _blank_texts(observation.get("value"))
    return result


def _blank_texts(value):
    if isinstance(value, dict):
        if isinstance(value.get("error"), str):  # recorder's marker: "Type: message"
            return {**value, "error": value["error"].split(":", 1)[0]}
        if isinstance(value.get("tensor"), dict):
            value["tensor"]["repr"] = None
        return {key: _blank_texts(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_blank_texts(inner) for inner in value]
    return value


def _diff(label, field, reference: str, engine: str) -> dict:
    head = f"{label}: {field}" if label else field
    return {
        "label": label,
        "field": field,
        "reference": reference,
        "engine": engine,
        "summary": f"{head}: PyTorch {reference}; your engine {engine}",
    }
