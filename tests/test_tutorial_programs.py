"""Short programs written the way PyTorch's beginner tutorials ("Learn the Basics", the
polynomial fit of "Learning PyTorch with Examples") use the API, run unchanged under PyTorch
and under `import minigrad as torch`: what they print is the same text (issue #16).

The data and the initial weights are fixed (no random values: the engines' random streams
differ by design), and the printed numbers are rounded as the tutorials round them.
"""

import math

import numpy as np
import pytest
import torch

import minigrad


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _set_weights(torch, model, seed):
    """Every parameter from a NumPy stream, in the model's order."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, size=tuple(p.shape)).astype(np.float32)))


def classifier_program(torch, print):
    """A small image classifier as in "Learn the Basics": Flatten, Linear, ReLU, ... trained
    with CrossEntropyLoss by SGD with momentum, then by Adam; prints loss and accuracy."""
    nn = torch.nn
    n = 12
    grid = np.arange(n * 2 * 3, dtype=np.float32).reshape(n, 2, 3)
    images = torch.tensor(np.sin(grid * 0.37) + np.cos(grid * 0.11))
    labels = torch.tensor([i % 3 for i in range(n)])

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3)
            )

        def forward(self, x):
            return self.linear_relu_stack(self.flatten(x))

    model = NeuralNetwork()
    _set_weights(torch, model, 0)
    print(model)
    loss_fn = nn.CrossEntropyLoss()
    for name, optimizer in [
        ("SGD", torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)),
        ("Adam", torch.optim.Adam(model.parameters(), lr=1e-2)),
    ]:
        for epoch in range(6):
            model.train()
            for batch in range(0, n, 4):
                X, y = images[batch : batch + 4], labels[batch : batch + 4]
                pred = model(X)
                loss = loss_fn(pred, y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            model.eval()
            with torch.no_grad():
                pred = model(images)
                test_loss = loss_fn(pred, labels).item()
                correct = (pred.argmax(1) == labels).type(torch.float).sum().item()
            print(f"{name} epoch {epoch + 1}: loss {test_loss:>7f}, accuracy {correct / n:>0.1%}")
        probs = nn.functional.softmax(model(images[:2]), dim=1)
        print(f"{name} probabilities: {[round(p, 3) for p in probs[0].tolist()]}")


def polynomial_autograd_program(torch, print):
    """The polynomial fit of sin(x) with tensors and autograd, updating weights by hand."""
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    a = torch.tensor(0.1, requires_grad=True)
    b = torch.tensor(-0.2, requires_grad=True)
    c = torch.tensor(0.3, requires_grad=True)
    d = torch.tensor(0.05, requires_grad=True)
    learning_rate = 1e-6
    for t in range(300):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if t % 50 == 49:
            print(t, f"{loss.item():.3f}")
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    print(
        f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3"
    )


def polynomial_nn_program(torch, print):
    """The same fit with nn.Sequential(Linear, Flatten(0, 1)), MSELoss(reduction='sum') and
    an optimizer, as the tutorial's nn and optim versions do."""
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    for name, make in [
        ("RMSprop", lambda ps: torch.optim.RMSprop(ps, lr=1e-3)),
        ("SGD", lambda ps: torch.optim.SGD(ps, lr=1e-6, momentum=0.9)),
    ]:
        model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
        _set_weights(torch, model, 1)
        loss_fn = torch.nn.MSELoss(reduction="sum")
        optimizer = make(model.parameters())
        for t in range(200):
            loss = loss_fn(model(xx), y)
            if t % 50 == 49:
                print(name, t, f"{loss.item():.5g}")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        linear = model[0]
        w = linear.weight[:, 0].item(), linear.weight[:, 1].item(), linear.weight[:, 2].item()
        print(
            f"{name}: y = {linear.bias.item():.4f} + {w[0]:.4f} x + {w[1]:.4f} x^2 + {w[2]:.4f} x^3"
        )
        print(name, "weight norm", f"{linear.weight.norm().item():.4f}")


def _run(program, engine):
    lines = []
    program(engine, lambda *args: lines.append(" ".join(str(a) for a in args)))
    return lines


@pytest.mark.parametrize(
    "program", [classifier_program, polynomial_autograd_program, polynomial_nn_program]
)
def test_the_program_prints_the_same_under_both_engines(program):
    expected = _run(program, torch)
    assert _run(program, minigrad) == expected
    assert len(expected) > 3
