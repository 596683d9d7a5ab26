"""Scenarios: the nn, optim and data APIs a training script reaches for (rule N4).

ModuleList and item assignment in Sequential, buffers and state_dict / load_state_dict of a
module (with PyTorch's report of missing, unexpected and mis-shaped keys), an optimizer's
state_dict round trip, AdamW, BCEWithLogitsLoss, ReLU(inplace=True), requires_grad_ on a
module, and TensorDataset / DataLoader batches (shuffled after the same manual_seed).
"""

from autograder.catalogue._data import floats
from autograder.scenarios import scenario

LECTURE = "course/07_capstone.ipynb#checkpoints-and-batches"


def _seeded_linear(T, rng, n_in, n_out):
    layer = T.nn.Linear(n_in, n_out)
    with T.no_grad():  # engines initialise alike on the CPU only: set the values from rng
        layer.weight.copy_(T.tensor(floats(rng, (n_out, n_in), -1, 1)))
        layer.bias.copy_(T.tensor(floats(rng, n_out, -1, 1)))
    return layer


@scenario(
    id="values.module_list_and_sequential_items",
    rules=["N4"],
    topic="values",
    lecture=LECTURE,
    devices=["cpu"],
)
def module_list_and_sequential_items(T, record, rng):
    n = int(rng.integers(2, 4))
    blocks = T.nn.ModuleList([_seeded_linear(T, rng, n, n) for _ in range(2)])
    record.value("repr", repr(blocks))
    record.value("parameter names", [name for name, _ in blocks.named_parameters()])
    record.call("append(Tanh)", lambda: repr(blocks.append(T.nn.Tanh())))
    record.call("extend([Tanh, ReLU])", lambda: repr(blocks.extend([T.nn.Tanh(), T.nn.ReLU()])))
    record.call("insert(1, Sigmoid)", lambda: (blocks.insert(1, T.nn.Sigmoid()), repr(blocks)))
    record.call("blocks[1:3]", lambda: repr(blocks[1:3]))
    record.call("blocks[-1]", lambda: repr(blocks[-1]))
    record.call("blocks[9]", lambda: blocks[9])
    record.call('blocks["0"]', lambda: blocks["0"])
    record.call("blocks[0] = ReLU()", lambda: (blocks.__setitem__(0, T.nn.ReLU()), repr(blocks)))
    record.call("del blocks[0]", lambda: (blocks.__delitem__(0), repr(blocks)))
    record.call("append(3)", lambda: blocks.append(3))
    record.call("extend(3)", lambda: blocks.extend(3))
    record.call("blocks(x)", lambda: blocks(T.ones(n)))
    record.value("len", len(blocks))

    net = T.nn.Sequential(_seeded_linear(T, rng, n, n), T.nn.ReLU(), _seeded_linear(T, rng, n, 1))
    record.call("net[1] = Tanh()", lambda: (net.__setitem__(1, T.nn.Tanh()), repr(net)))
    record.call("net[-1] = Linear", lambda: net.__setitem__(-1, _seeded_linear(T, rng, n, 2)))
    record.call("net[5] = Tanh()", lambda: net.__setitem__(5, T.nn.Tanh()))
    record.call("net[0] = 3", lambda: net.__setitem__(0, 3))
    record.call("del net[1]", lambda: (net.__delitem__(1), repr(net)))
    record.call("net.requires_grad_(False)", lambda: repr(net.requires_grad_(False)))
    record.value("flags", [p.requires_grad for p in net.parameters()])
    x = T.tensor(floats(rng, (2, n), -1, 1), requires_grad=True)
    y = record.call("net(x) of frozen layers", lambda: net(x))
    record.call("backward", lambda: y.sum().backward())
    record.grad("x.grad", x)
    record.value("weight grads", [p.grad is None for p in net.parameters()])
    record.call("requires_grad_(True)", lambda: net.requires_grad_(True) and None)
    record.value("flags again", [p.requires_grad for p in net.parameters()])

    relu = T.nn.ReLU(inplace=True)
    record.value("ReLU(inplace=True)", repr(relu))
    a = T.tensor(floats(rng, 4, -1, 1), requires_grad=True)
    h = a * 2
    r = record.call("relu(h)", lambda: relu(h))
    record.value("relu(h) is h", r is h)
    record.tensor("h", h)
    record.call("backward through relu_", lambda: (h * h).sum().backward())
    record.grad("a.grad", a)
    record.call("relu(leaf)", lambda: relu(a))


@scenario(
    id="values.buffers_and_state_dict",
    rules=["N4"],
    topic="values",
    lecture=LECTURE,
    devices=["cpu"],
)
def buffers_and_state_dict(T, record, rng):
    class Scaled(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = _seeded_linear(T, rng, 3, 2)
            self.register_buffer("scale", T.tensor(floats(rng, 2)))
            self.register_buffer("count", T.tensor(0))
            self.register_buffer("cache", T.zeros(2), persistent=False)

        def forward(self, x):
            return self.lin(x) * self.scale

    m = Scaled()
    record.value("state_dict keys", list(m.state_dict()))
    record.value("buffer names", [name for name, _ in m.named_buffers()])
    record.tensor("m.scale", m.scale)
    sd = m.state_dict()
    record.tensor("state_dict()['lin.weight']", sd["lin.weight"])
    record.value("state_dict()['scale'] is m.scale", sd["scale"] is m.scale)
    record.shares("state_dict()['scale'] shares m.scale", sd["scale"], m.scale)
    record.value("keep_vars", m.state_dict(keep_vars=True)["lin.weight"].requires_grad)
    record.call("register_buffer('a.b')", lambda: m.register_buffer("a.b", T.ones(1)))
    record.call("register_buffer('lin')", lambda: m.register_buffer("lin", T.ones(1)))
    record.call("register_buffer('')", lambda: m.register_buffer("", T.ones(1)))
    record.call("register_buffer('q', 3)", lambda: m.register_buffer("q", 3))
    record.call("register_buffer(3, t)", lambda: m.register_buffer(3, T.ones(1)))
    record.call("m.scale = 3", lambda: setattr(m, "scale", 3))
    record.call("m.lin = 3", lambda: setattr(m, "lin", 3))
    record.call("m.double()", lambda: m.double() and None)
    record.value("dtypes after double()", [str(b.dtype) for _, b in m.named_buffers()])
    m.float()

    fresh = Scaled()
    record.call("load_state_dict(sd)", lambda: fresh.load_state_dict(m.state_dict()))
    record.tensor("fresh.lin.weight", fresh.lin.weight)
    record.tensor("fresh.scale", fresh.scale)
    x = T.tensor(floats(rng, (2, 3), -1, 1))
    record.call("same outputs", lambda: (fresh(x) - m(x)).abs().max())
    bad = dict(m.state_dict())
    del bad["lin.bias"]
    bad["extra"] = T.ones(1)
    bad["lin.extra"] = T.ones(1)
    bad["cache"] = T.ones(2)
    record.call("strict load of a wrong dict", lambda: fresh.load_state_dict(bad))
    record.call("strict=False", lambda: fresh.load_state_dict(bad, strict=False))
    shapes = dict(m.state_dict())
    shapes["lin.weight"] = T.ones(4, 3)
    shapes["scale"] = T.ones(5)
    record.call("shape mismatches", lambda: fresh.load_state_dict(shapes))
    del shapes["count"]
    record.call("missing and mismatched", lambda: fresh.load_state_dict(shapes, strict=False))
    record.call("a list for a tensor", lambda: fresh.load_state_dict({**sd, "scale": [1.0, 2.0]}))
    record.call("load_state_dict(3)", lambda: fresh.load_state_dict(3))
    as64 = {k: v.double() for k, v in m.state_dict().items()}
    record.call("float64 values into float32", lambda: fresh.load_state_dict(as64))
    record.tensor("fresh.lin.weight after", fresh.lin.weight)


@scenario(
    id="values.optimizer_state_dict", rules=["N4"], topic="values", lecture=LECTURE, devices=["cpu"]
)
def optimizer_state_dict(T, record, rng):
    def batch():
        return T.tensor(floats(rng, (4, 3), -1, 1)), T.tensor(floats(rng, (4, 1), -1, 1))

    def step(model, opt, x, y):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()

    for name, make in [
        ("SGD", lambda ps: T.optim.SGD(ps, lr=0.1, momentum=0.9)),
        ("Adam", lambda ps: T.optim.Adam(ps, lr=0.05)),
        ("AdamW", lambda ps: T.optim.AdamW(ps, lr=0.05, weight_decay=0.1)),
    ]:
        model = _seeded_linear(T, rng, 3, 1)
        opt = make(model.parameters())
        record.call(f"{name} state_dict before a step", lambda opt=opt: opt.state_dict())
        data = [batch() for _ in range(4)]
        for x, y in data[:2]:
            step(model, opt, x, y)
        # not copied: the resumed optimizer shares its state tensors with the first, as in
        # PyTorch (both runs then update the same moments)
        saved_model, saved_opt = model.state_dict(), opt.state_dict()
        # (a dict's values are compared exactly: its tensors are recorded one by one)
        record.value(f"{name} param_groups", saved_opt["param_groups"])
        for index, state in saved_opt["state"].items():
            for key, value in state.items():
                record.tensor(f"{name} state {index} {key}", value)
        clone = _seeded_linear(T, rng, 3, 1)
        clone.load_state_dict({k: v.clone() for k, v in saved_model.items()})
        resumed = make(clone.parameters())
        record.call(f"{name} load_state_dict", lambda r=resumed, s=saved_opt: r.load_state_dict(s))
        record.value(f"{name} settings after loading", resumed.param_groups[0]["lr"])
        for x, y in data[2:]:
            step(model, opt, x, y)
            step(clone, resumed, x, y)
        record.tensor(f"{name} weight, uninterrupted", model.weight)
        record.tensor(f"{name} weight, resumed", clone.weight)
        two = make([{"params": [clone.weight]}, {"params": [clone.bias]}])
        record.call(f"{name} load into two groups", lambda t=two, s=saved_opt: t.load_state_dict(s))
        short = make([clone.weight])
        record.call(
            f"{name} load into a smaller group", lambda t=short, s=saved_opt: t.load_state_dict(s)
        )
    record.value("AdamW repr", repr(T.optim.AdamW([T.zeros(1, requires_grad=True)])))
    record.call("AdamW(weight_decay=-1)", lambda: T.optim.AdamW([T.zeros(1)], weight_decay=-1))


@scenario(
    id="values.bce_with_logits", rules=["N4"], topic="values", lecture=LECTURE, devices=["cpu"]
)
def bce_with_logits(T, record, rng):
    F = T.nn.functional
    n = int(rng.integers(2, 5))
    weight = T.tensor(floats(rng, n, 0.5, 2))
    pos_weight = T.tensor(floats(rng, n, 0.5, 3))
    options = {
        "mean": {},
        "sum": {"reduction": "sum"},
        "none": {"reduction": "none"},
        "weight": {"weight": weight},
        "pos_weight": {"pos_weight": pos_weight},
        "both": {"weight": weight, "pos_weight": pos_weight, "reduction": "sum"},
    }
    for label, kw in options.items():
        x = T.tensor(floats(rng, (3, n), -4, 4), requires_grad=True)
        t = T.tensor(rng.uniform(0, 1, size=(3, n)).round(1).tolist(), requires_grad=True)
        loss = record.call(
            f"loss ({label})",
            lambda x=x, t=t, kw=kw: F.binary_cross_entropy_with_logits(x, t, **kw),
        )
        record.call(f"backward ({label})", lambda loss=loss: loss.sum().backward())
        record.grad(f"x.grad ({label})", x)
        record.grad(f"t.grad ({label})", t)
    x = T.tensor(floats(rng, (2, n), -4, 4), requires_grad=True)
    ones = T.ones(2, n)
    record.call("target of another size", lambda: F.binary_cross_entropy_with_logits(x, T.ones(n)))
    record.call(
        "reduction='bad'", lambda: F.binary_cross_entropy_with_logits(x, ones, reduction="bad")
    )
    record.call("int64 target", lambda: F.binary_cross_entropy_with_logits(x, ones.long()))
    # a float64 loss, its float32 log_sigmoid rounded by each engine's own exp and log1p
    record.call(
        "float64 target",
        lambda: F.binary_cross_entropy_with_logits(x, ones.double()).float(),
    )
    record.call("float64 input", lambda: F.binary_cross_entropy_with_logits(x.double(), ones))
    wide = T.ones(n + 1)
    record.call(
        "weight of a wrong size", lambda: F.binary_cross_entropy_with_logits(x, ones, weight=wide)
    )
    record.call(
        "pos_weight of a wrong size",
        lambda: F.binary_cross_entropy_with_logits(x, ones, pos_weight=wide),
    )
    w_grad = T.ones(n, requires_grad=True)
    record.call(
        "weight requiring grad", lambda: F.binary_cross_entropy_with_logits(x, ones, weight=w_grad)
    )
    criterion = T.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    record.value("module repr", repr(criterion))
    record.value("module state_dict keys", list(T.nn.BCEWithLogitsLoss(weight=weight).state_dict()))
    record.call("module loss", lambda: criterion(x, ones))


@scenario(
    id="values.tensor_dataset_and_dataloader",
    rules=["N4"],
    topic="values",
    lecture=LECTURE,
    devices=["cpu"],
)
def tensor_dataset_and_dataloader(T, record, rng):
    n = int(rng.integers(5, 9))
    X = T.tensor(floats(rng, (n, 2), -1, 1))
    Y = T.arange(n)
    data = T.utils.data.TensorDataset(X, Y)
    record.value("len", len(data))
    record.call("data[1]", lambda: data[1])
    record.call("data[n]", lambda: data[n])
    record.call("sizes that differ", lambda: T.utils.data.TensorDataset(X, T.arange(n + 1)))
    DataLoader = T.utils.data.DataLoader
    for batch_size, drop_last in [(1, False), (2, False), (3, True), (n + 2, False)]:
        loader = DataLoader(data, batch_size=batch_size, drop_last=drop_last)
        label = f"batch_size={batch_size}, drop_last={drop_last}"
        record.value(f"len ({label})", len(loader))
        record.call(f"batches ({label})", lambda loader=loader: list(loader))
    seed = int(rng.integers(0, 2**31))
    T.manual_seed(seed)
    loader = DataLoader(data, batch_size=3, shuffle=True)
    record.call("two shuffled epochs", lambda: [[y.tolist() for _, y in loader] for _ in range(2)])
    record.call("the generator moved on", lambda: T.rand(2))
    record.call("batch_size=None", lambda: list(DataLoader(data, batch_size=None))[:2])
    record.call("batch_size=0", lambda: DataLoader(data, batch_size=0))
    record.call("batch_size=2.5", lambda: DataLoader(data, batch_size=2.5))
    w = T.tensor(floats(rng, (n, 2), -1, 1), requires_grad=True)
    batch = record.call(
        "a batch of a tensor requiring grad",
        lambda: next(iter(DataLoader(T.utils.data.TensorDataset(w), batch_size=2))),
    )
    record.call("backward through the batch", lambda: batch[0].sum().backward())
    record.grad("w.grad", w)
