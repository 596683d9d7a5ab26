"""minigrad's CUDA path through the strict CuPy stand-in (tests/cupy_standin.py), and the
stand-in itself held to what CuPy 14 does.

Every catalogue scenario that exists on "cuda" is observed twice with minigrad: "cuda" backed by
plain NumPy, then by the strict stand-in. A difference is a CuPy-compat bug in minigrad (NumPy
given a CuPy array, a NumPy array mixed in, a function CuPy lacks) or an inaccuracy of one of
the two stand-ins; the plain one's known inaccuracies are listed below with why.
"""

from contextlib import nullcontext
from unittest import mock

import cupy_standin as cp
import numpy as np
import pytest

import minigrad
from autograder.compare import compare
from autograder.observe import observe_scenario
from autograder.scenarios import select
from minigrad import _warnings
from minigrad._device import standin_cuda

pytestmark = pytest.mark.xdist_group("cuda_standin")  # one worker observes the catalogue twice

SEED = 0
IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)
# Plain NumPy arrays cannot say which device they are on, so on the plain stand-in minigrad
# places a tensor it makes from an array alone (autograd.grad's results, a hook's replacement)
# on the CPU; a CuPy array (or the strict stand-in's) says cuda, as PyTorch does.
PLAIN_STANDIN_SAYS_CPU = {
    "leaf.retain_graph",
    "values.autograd_grad_names_the_unused_input",
    "values.autograd_grad_runs_only_what_it_needs",
    "values.backward_gradient_must_be_tensors",
    "values.hooks_that_change_the_gradient",
}


def _observe(module) -> dict:
    """Every cuda scenario, in this process. The fresh_process ones (once-only warnings) would
    run in a server subprocess that has no stand-in: here they run with minigrad's once-only
    warnings forgotten, as a fresh process has them."""
    results = {}
    with standin_cuda(module):
        for sc in select(device="cuda"):
            with (
                mock.patch.object(_warnings, "_already", set())
                if sc.fresh_process
                else nullcontext()
            ):
                results[sc.id] = observe_scenario(minigrad, sc, SEED, "cuda")
    return {"device": "cuda", "scenarios": results}


@pytest.fixture(scope="module")
def observed():
    return _observe(np), _observe(cp)


def test_every_cuda_scenario_runs_to_its_end_on_both_standins(observed):
    for run in observed:
        stopped = {
            sid: r.get("error") for sid, r in run["scenarios"].items() if r["status"] != "ok"
        }
        assert stopped == {}
    assert len(observed[1]["scenarios"]) == len(select(device="cuda")) > 150


def test_the_cuda_path_behaves_on_the_strict_standin_as_on_numpy(observed):
    differences = {sid: d for sid, d in compare(*observed).items() if d}
    unexplained = {
        sid: [d["summary"] for d in diffs]
        for sid, diffs in differences.items()
        if sid not in PLAIN_STANDIN_SAYS_CPU
    }
    assert unexplained == {}
    assert set(differences) == PLAIN_STANDIN_SAYS_CPU  # each still differs: the list is current
    for sid in PLAIN_STANDIN_SAYS_CPU:  # and only where the tensor is
        for d in differences[sid]:
            assert "cuda" in d["engine"] and "cuda" not in d["reference"], d["summary"]


@pytest.mark.parametrize("dtype", ["uint8", "bool", "int32", "float16"])
def test_index_add_on_cuda_gives_the_cpus_values_in_every_dtype(dtype):
    """CuPy's add.at has no uint8 or bool kernel (CUDA adds those atomically in no type)."""

    def index_add(device):
        dt = getattr(minigrad, dtype)
        x = minigrad.tensor([[1, 0], [250, 1]], dtype=dt, device=device)
        src = minigrad.tensor([[9, 1], [8, 0], [0, 1]], dtype=dt, device=device)
        index = minigrad.tensor([1, 1, 0], device=device)
        return x.index_add(0, index, src).cpu().tolist()

    with standin_cuda(cp):
        assert index_add("cuda") == index_add("cpu")


JOINING = {
    "a + s": lambda a, s: a + s,
    "s * a": lambda a, s: s * a,
    "a / s": lambda a, s: a / s,
    "a ** s": lambda a, s: a**s,
    "s ** a": lambda a, s: s**a,
    "a % s": lambda a, s: a % s,
    "where(c, s, a)": lambda a, s: minigrad.where(a > 1, s, a),
    "where(c0d, a, s)": lambda a, s: minigrad.where(minigrad.tensor(True), a, s),
    "clamp(min=s)": lambda a, s: a.clamp(min=s),
    "a.mul_(s)": lambda a, s: (a * 1).mul_(s),
}


@pytest.mark.parametrize("op", JOINING)
def test_a_0d_cpu_tensor_joins_a_cuda_op_and_its_gradient_goes_home(op):
    """PyTorch lets a 0-d CPU tensor join a CUDA op; backward computes with it on the GPU and
    gives its gradient back on the CPU."""

    def run(module):
        with standin_cuda(module):
            a = minigrad.tensor([0.5, 1.5, 2.0], device="cuda", requires_grad=True)
            s = minigrad.tensor(1.25, requires_grad=True)
            y = JOINING[op](a, s)
            y.sum().backward()
            assert y.is_cuda and s.grad.device.type == "cpu"
            assert type(s.grad._data) is np.ndarray  # host memory, as a CPU tensor's
            return y.detach().cpu().tolist(), a.grad.cpu().tolist(), s.grad.item()

    assert run(cp) == run(np)


# -- the stand-in is CuPy where a CUDA path can trip -------------------------------------------


def test_implicit_conversion_to_numpy_is_refused():
    a = cp.asarray(np.arange(3.0))
    with pytest.raises(TypeError) as err:
        np.asarray(a)
    assert str(err.value) == IMPLICIT
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.array([a[0], a[1]])
    assert isinstance(a.get(), np.ndarray) and isinstance(cp.asnumpy(a), np.ndarray)


def test_numpy_arrays_do_not_mix_in_but_numbers_do():
    a = cp.asarray(np.arange(3.0))
    for mixed in (
        lambda: a + np.ones(3),
        lambda: np.ones(3) * a,
        lambda: cp.where(a > 1, a, np.zeros(3)),
    ):
        with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>"):
            mixed()
    with pytest.raises(TypeError, match="Unsupported type"):
        cp.concatenate([a, np.ones(2)])
    for number in (2, 2.0, np.float32(2), np.int64(2)):
        assert type(a * number) is cp.ndarray and type(number - a) is cp.ndarray
    assert (a == np.array(1.0)).tolist() == [False, True, False]  # CuPy compares a 0-d one


def test_only_cupys_names_exist():
    for absent in ("errstate", "insert", "spacing", "object_"):
        assert not hasattr(cp, absent)
    with pytest.raises(TypeError, match="no implementation found for 'numpy.insert'"):
        np.insert(cp.zeros(2), 0, 1.0)
    assert cp.float32 is np.float32 and cp.finfo is np.finfo  # CuPy re-exports NumPy's own
    assert type(np.exp(cp.zeros(2))) is cp.ndarray  # NumPy's functions dispatch to CuPy's
    assert not hasattr(cp.zeros(2), "ctypes") and not hasattr(cp.zeros(2), "__array_interface__")
    assert cp.zeros(2).flags.c_contiguous and not hasattr(cp.zeros(2).flags, "writeable")


def test_numbers_come_back_as_0d_arrays_and_python_scalars_only_on_request():
    a = cp.asarray(np.array([1.5, 2.5]))
    for zero_d in (a.sum(), a[0], a.max(), np.sum(a)):
        assert type(zero_d) is cp.ndarray and zero_d.shape == ()
    assert float(a[0]) == 1.5 and a[1].item() == 2.5 and a.tolist() == [1.5, 2.5]
    assert [type(x) for x in a] == [cp.ndarray, cp.ndarray]
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        a.item()
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(a[0])
    with pytest.raises(TypeError):  # no __index__: a CuPy number is no list index
        [1, 2][cp.asarray(np.array(1))]


def test_copies_cross_between_host_and_device():
    host = np.zeros(2)
    a = cp.asarray(host)
    assert cp.asarray([a[0], a[1], 2.0]).tolist() == [0.0, 0.0, 2.0]  # CuPy joins its own
    a[0] = 1.0
    assert host[0] == 0.0
    back = a.get()
    back[1] = 5.0
    assert a.tolist() == [1.0, 0.0]


def test_writes_take_numpy_values_only_as_cupy_does():
    a = cp.zeros(3)
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        a[:] = np.ones(3)
    a[np.array([0, 2])] = np.array([1.0, 2.0])  # an advanced index copies values in
    a[1] = np.float64(3.0)
    assert a.tolist() == [1.0, 3.0, 2.0]
    view = cp.broadcast_to(a[:1], (4,))  # CuPy's views are writable, broadcasts too
    view[0] = 7.0
    assert a[0].item() == 7.0


def test_ufunc_methods_are_cupys():
    a = cp.zeros(3, dtype=np.float32)
    cp.add.at(a, cp.asarray(np.array([0, 0])), 1.0)
    np.add.at(a, cp.asarray(np.array([1])), 2.0)  # NumPy's ufunc.at dispatches to CuPy's
    assert a.tolist() == [2.0, 2.0, 0.0]
    with pytest.raises(TypeError, match="cupy.add.at only supports int32, int64, float16"):
        cp.add.at(cp.zeros(3, dtype=np.int8), np.array([0]), 1)
    with pytest.raises(NotImplementedError, match="multiply.at"):
        cp.multiply.at(a, np.array([0]), 2.0)


def test_minigrad_computes_with_the_standin_it_is_given():
    with standin_cuda(cp):
        t = minigrad.ones(2, device="cuda")
        assert type(t._data) is cp.ndarray and type((t * 2).sum()._data) is cp.ndarray
        assert type(t.cpu()._data) is np.ndarray
