"""Device logic of minigrad, on every run, through a stand-in "cuda" backed by NumPy, and again
by the strict CuPy stand-in (tests/cupy_standin.py).

CI has no GPU, so the device rules (V1-V5) are checked here against the texts and behaviour
PyTorch gives on CUDA; the real-GPU runs are the parity suite's cuda cases.
"""

import cupy_standin
import numpy as np
import pytest

import minigrad
from minigrad._device import standin_cuda


@pytest.fixture(params=[np, cupy_standin], ids=["numpy", "strict_cupy"])
def cuda(request):
    with standin_cuda(request.param):
        yield


def test_no_cuda_without_a_gpu_or_the_standin():
    if minigrad.cuda.is_available():
        pytest.skip("a real GPU is present")
    with pytest.raises(AssertionError, match="CUDA"):
        minigrad.ones(2).cuda()
    with pytest.raises(AssertionError):
        minigrad.ones(2, device="cuda")


def test_cuda_copy_of_a_leaf_is_not_a_leaf(cuda):
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.cuda()
    assert (y.is_leaf, y.requires_grad, type(y.grad_fn).__name__) == (
        False,
        True,
        "ToCopyBackward0",
    )
    assert str(y.device) == "cuda:0" and y.is_cuda
    assert repr(y) == "tensor([1., 2., 3.], device='cuda:0', grad_fn=<ToCopyBackward0>)"
    assert y.type() == "minigrad.cuda.FloatTensor"


def test_gradient_returns_to_the_cpu_leaf_in_its_dtype(cuda):
    x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, requires_grad=True)
    y = x.to("cuda", minigrad.float32)
    (y * y).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.dtype is minigrad.float64
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_created_on_the_device_or_moved_then_marked_is_a_leaf(cuda):
    a = minigrad.ones(3, device="cuda", requires_grad=True)
    b = minigrad.ones(3).cuda().requires_grad_()
    for t in (a, b):
        assert t.is_leaf and t.requires_grad and t.grad_fn is None and t.is_cuda
    (a * 2).sum().backward()
    assert a.grad.is_cuda


def test_to_the_same_device_returns_self(cuda):
    a = minigrad.ones(2, device="cuda", requires_grad=True)
    assert a.cuda() is a and a.to("cuda") is a and a.to(a.device) is a
    c = minigrad.ones(2)
    assert c.cpu() is c and c.to("cpu") is c


@pytest.mark.parametrize("order", ["cuda+cpu", "cpu+cuda"])
def test_mixing_devices_fails_naming_cuda_first(cuda, order):
    g, c = minigrad.ones(3, device="cuda"), minigrad.ones(3)
    left, right = (g, c) if order == "cuda+cpu" else (c, g)
    with pytest.raises(RuntimeError) as err:
        left + right
    assert str(err.value) == (
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!"
    )


def test_a_zero_dim_cpu_tensor_may_join_a_cuda_tensor(cuda):
    out = minigrad.ones(3, device="cuda") * minigrad.tensor(2.0)
    assert out.is_cuda
    np.testing.assert_allclose(out.cpu().numpy(), [2.0, 2.0, 2.0])


def _on(device, *shape, dtype=None, values=None):
    t = minigrad.ones(*shape, dtype=dtype) if values is None else minigrad.tensor(values)
    return t.to(device)


F = minigrad.nn.functional
# (call, argument, its device, the other tensors' device, PyTorch's kernel): the check PyTorch
# generates for a kernel's wrapper (torchgen's gen_device_check) runs before the kernel's own
# checks, takes the first tensor argument's device as the common one, makes no exception for a
# 0-d CPU tensor, and a call mixing CPU and CUDA reaches the CUDA kernel's wrapper. Kernel names
# are torchgen's: wrapper_CUDA_<name>_<overload> for a structured kernel, wrapper_CUDA__<name>
# for another; a public report has each of mm, bmm, addmm, gather and nll_loss_forward.
KERNEL_DEVICE_CHECKS = {
    "cuda @ cpu": (lambda: _on("cuda", 2, 2) @ _on("cpu", 2, 2), "mat2", "cpu", "cuda:0", "mm"),
    "cpu @ cuda": (lambda: _on("cpu", 2, 2) @ _on("cuda", 2, 2), "mat2", "cuda:0", "cpu", "mm"),
    "mm, 0-d cpu": (lambda: _on("cuda", 2, 2).mm(minigrad.tensor(1.0)), "mat2", "cpu",
                    "cuda:0", "mm"),
    "batch @ cpu": (lambda: _on("cuda", 2, 2, 2) @ _on("cpu", 2, 2, 2), "mat2", "cpu", "cuda:0",
                    "bmm"),
    "dot": (lambda: _on("cuda", 3).dot(_on("cpu", 3)), "tensor", "cpu", "cuda:0", "_dot"),
    "mv, cuda vector": (lambda: _on("cpu", 2, 3).mv(_on("cuda", 3)), "mat", "cpu", "cuda:0",
                        "addmv_"),
    "mv, cpu vector": (lambda: _on("cuda", 2, 3).mv(_on("cpu", 3)), "mat", "cuda:0", "cpu",
                       "addmv_"),
    "linear, cpu layer": (lambda: minigrad.nn.Linear(3, 2)(_on("cuda", 4, 3)), "mat1", "cuda:0",
                          "cpu", "addmm"),
    "linear, float64 too": (lambda: minigrad.nn.Linear(3, 2)(_on("cuda", 4, 3,
                            dtype=minigrad.float64)), "mat1", "cuda:0", "cpu", "addmm"),
    "gather": (lambda: _on("cuda", 3).gather(0, _on("cpu", values=[0, 2])), "index", "cpu",
               "cuda:0", "gather"),
    "gather, float index": (lambda: _on("cuda", 3).gather(0, _on("cpu", 2)), "index", "cpu",
                            "cuda:0", "gather"),
    "scatter src": (lambda: _on("cuda", 3).scatter(0, _on("cuda", values=[0]), _on("cpu", 1)),
                    "src", "cpu", "cuda:0", "scatter_src"),
    "scatter value": (lambda: _on("cpu", 3).scatter(0, _on("cuda", values=[0]), 2.0), "index",
                      "cuda:0", "cpu", "scatter_value"),
    "scatter_ src": (lambda: _on("cuda", 3).scatter_(0, _on("cpu", values=[0]), _on("cuda", 1)),
                     "index", "cpu", "cuda:0", "scatter__src"),
    "scatter reduce": (lambda: _on("cuda", 3).scatter(0, _on("cpu", values=[0]), _on("cuda", 1),
                       reduce="add"), "index", "cpu", "cuda:0", "scatter_reduce"),
    "scatter_ value reduce": (lambda: _on("cuda", 3).scatter_(0, _on("cpu", values=[0]), 2.0,
                              reduce="bad"), "index", "cpu", "cuda:0", "scatter__value_reduce"),
    "index_add": (lambda: _on("cuda", 3).index_add(0, _on("cpu", values=[0]), _on("cuda", 1)),
                  "index", "cpu", "cuda:0", "index_add"),
    "index_add_": (lambda: _on("cuda", 3).index_add_(0, _on("cuda", values=[0]), _on("cpu", 1)),
                   "source", "cpu", "cuda:0", "index_add_"),
    "nll_loss": (lambda: F.nll_loss(_on("cuda", 2, 3), _on("cpu", values=[0, 2])), "target",
                 "cpu", "cuda:0", "nll_loss_forward"),
    "cross_entropy": (lambda: F.cross_entropy(_on("cuda", 2, 3), _on("cpu", values=[0, 2])),
                      "target", "cpu", "cuda:0", "nll_loss_forward"),
}  # fmt: skip


@pytest.mark.parametrize("case", KERNEL_DEVICE_CHECKS)
def test_a_kernel_checks_every_tensor_argument_is_on_the_first_ones_device(cuda, case):
    call, argument, device, common, kernel = KERNEL_DEVICE_CHECKS[case]
    with pytest.raises(RuntimeError) as err:
        call()
    assert str(err.value) == (
        f"Expected all tensors to be on the same device, but got {argument} is on {device}, "
        f"different from other tensors on {common} (when checking argument in method "
        f"wrapper_CUDA_{kernel})"
    )


def test_a_batch_broadcast_error_comes_before_the_device_check(cuda):
    with pytest.raises(RuntimeError, match="must match the size"):
        _on("cuda", 2, 2, 2) @ _on("cpu", 3, 2, 2)


def test_numpy_of_a_cuda_tensor_fails_before_the_grad_check(cuda):
    g = minigrad.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(TypeError) as err:
        g.numpy()
    assert str(err.value) == (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
        "to host memory first."
    )
    np.testing.assert_array_equal(g.detach().cpu().numpy(), [1.0, 1.0, 1.0])


def test_version_error_names_the_cuda_tensor_type(cuda):
    a = minigrad.ones(3, device="cuda", requires_grad=True)
    x = a * 2
    y = x**2
    x.add_(1)
    with pytest.raises(RuntimeError, match=r"\[minigrad\.cuda\.FloatTensor \[3\]\], which is"):
        y.sum().backward()


def test_module_to_keeps_parameters_as_the_same_leaves(cuda):
    model = minigrad.nn.Linear(3, 2)
    before = list(model.parameters())
    model.to("cuda")
    after = list(model.parameters())
    assert all(p is q for p, q in zip(before, after, strict=True))
    assert all(p.is_leaf and p.is_cuda and type(p).__name__ == "Parameter" for p in after)
    out = model(minigrad.ones(4, 3, device="cuda")).sum()
    out.backward()
    assert model.weight.grad.is_cuda


def test_parameter_moved_is_a_plain_non_leaf_tensor(cuda):
    p = minigrad.nn.Parameter(minigrad.ones(3))
    moved = p.cuda()
    assert (type(moved).__name__, moved.is_leaf, type(moved.grad_fn).__name__) == (
        "Tensor",
        False,
        "ToCopyBackward0",
    )
    q = minigrad.nn.Parameter(minigrad.ones(3).cuda())
    assert type(q).__name__ == "Parameter" and q.is_leaf and q.is_cuda


@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
def test_cuda_indices_of_a_cpu_tensor_are_refused_cpu_ones_serve_any_device(cuda, write):
    x, index = minigrad.arange(3), minigrad.tensor([0, 2], device="cuda")
    with pytest.raises(RuntimeError) as err:
        if write:
            x[index] = 5
        else:
            x[index]
    assert str(err.value) == (
        "indices should be either on cpu or on the same device as the indexed tensor (cpu)"
    )
    assert minigrad.arange(3, device="cuda")[minigrad.tensor([0, 2])].tolist() == [0, 2]


def test_mse_loss_takes_devices_as_an_elementwise_kernel(cuda):
    mse = minigrad.nn.functional.mse_loss
    with pytest.raises(RuntimeError) as err:
        mse(minigrad.ones(3, device="cuda"), minigrad.ones(3))
    assert str(err.value) == (
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!"
    )
    x = minigrad.tensor(2.0, device="cuda", requires_grad=True)
    target = minigrad.tensor(0.5, requires_grad=True)  # a 0-d CPU tensor joins
    loss = mse(x, target)
    loss.backward()
    assert loss.is_cuda and x.grad.is_cuda and target.grad.device.type == "cpu"
    assert (x.grad.item(), target.grad.item()) == (3.0, -3.0)
    assert isinstance(target.grad.numpy(), np.ndarray)
