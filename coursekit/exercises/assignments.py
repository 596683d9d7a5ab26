"""The five assignments: which topic each grades, which rules, and how they are introduced.

Each assignment grades only the rules its graded functions decide (minigrad/seams/<name>.py,
GRADED), so that the released stub scores 0 and a bug in a function costs that function's
rules: one CPU test cell per rule, plus one CUDA test cell for all of them. A cell's points
are the weights of the catalogue scenarios it runs (autograder.check(rules=[rule],
topics=[topic])), read from the catalogue when the notebooks are generated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.rules import RULES
from autograder.scenarios import select
from minigrad import seams

KIT = Path(__file__).resolve().parent
FETCH_DIR = "my_assignments"  # where `make lab`'s Assignment List fetches to (git-ignored)


@dataclass(frozen=True)
class Assignment:
    name: str  # directory and notebook name under solutions/ and exercises/
    topic: str  # the catalogue topic its hidden tests draw scenarios from
    title: str
    lecture: str  # the lecture notebook it follows
    intro: str  # what the student builds, in one paragraph
    title_zh: str = ""  # the two in Chinese ("": not translated yet; coursekit/languages.py)
    intro_zh: str = ""

    def _decided(self, device: str) -> tuple[str, ...]:
        decided = {rule for rules in seams.graded(self.name).values() for rule in rules}
        present = {r for sc in select(topics=[self.topic], device=device) for r in sc.rules}
        return tuple(rule for rule in RULES if rule in decided & present)

    @property
    def rules(self) -> tuple[str, ...]:
        """Graded on CPU, one test cell each: the rules its functions decide, SPEC order."""
        return self._decided("cpu")

    @property
    def cuda_rules(self) -> tuple[str, ...]:
        """Graded in the CUDA cell."""
        return self._decided("cuda")

    @property
    def part_file(self) -> Path:
        """The exercise's prose, answer-cell order and visible tests."""
        return KIT / "parts" / f"{self.name}.py"

    @property
    def list_id(self) -> str:
        """Its id in the Assignment List, which nbgrader sorts by id: numbered in course
        order ("1_leaf_nodes"), so the list reads as the lectures do."""
        return f"{ASSIGNMENTS.index(self) + 1}_{self.name}"

    @property
    def fetched_copy(self) -> str:
        """Where the Assignment List's Fetch puts the copy a student works in and submits."""
        return f"{FETCH_DIR}/{self.list_id}/{self.name}.ipynb"

    @property
    def started_copy(self) -> str:
        """Where `minigrad-course start DIR` puts it, relative to DIR."""
        return f"exercises/{self.name}/{self.name}.ipynb"


ASSIGNMENTS = (
    Assignment(
        name="leaf_nodes",
        topic="leaf",
        title="Leaf nodes: who keeps a gradient, and what `.grad` does",
        lecture="course/02_leaf_nodes.ipynb",
        intro=(
            "You write the four functions behind the most common surprise in PyTorch, "
            "`x.grad is None`: what reading `.grad` returns (and when it warns), what "
            "`retain_grad()` changes, how `backward()` hands each tensor its gradient (and "
            "accumulates it), and what `x.grad = value` accepts."
        ),
        title_zh="叶子节点：谁保留梯度，以及 `.grad` 做了什么",
        intro_zh=(
            "你要编写的四个函数，正是 PyTorch 里最常见的意外 `x.grad is None` 背后的东西："
            "读取 `.grad` 返回什么（以及何时发出警告），`retain_grad()` 改变了什么，"
            "`backward()` 如何把梯度交给每个张量（并累加它），以及 `x.grad = value` "
            "接受什么。"
        ),
    ),
    Assignment(
        name="detach_numpy",
        topic="numpy",
        title="detach() and NumPy: where graphs are cut and memory is shared",
        lecture="course/03_detach_numpy.ipynb",
        intro=(
            "You write the bridge between tensors and NumPy arrays: `detach()` and "
            "`detach_()`, `numpy()` (which refuses a tensor that requires grad) and "
            "`from_numpy()`. Both directions share memory; only `detach()` leaves the graph."
        ),
        title_zh="detach() 与 NumPy：计算图在哪里被切断，内存在哪里被共享",
        intro_zh=(
            "你要编写张量与 NumPy 数组之间的桥梁：`detach()` 和 `detach_()`、`numpy()`"
            "（它拒绝需要梯度的张量）以及 `from_numpy()`。两个方向都共享内存；只有 "
            "`detach()` 离开计算图。"
        ),
    ),
    Assignment(
        name="inplace_versions",
        topic="inplace",
        title="In-place operations and version counters",
        lecture="course/04_inplace_versions.ipynb",
        intro=(
            "You write the bookkeeping that makes in-place operations safe: a version "
            "counter shared by a tensor, its views and its detached aliases, the check a "
            "node makes at `backward()` on the tensors it saved (with PyTorch's famous "
            "message), and the refusal to change a leaf that requires grad in place."
        ),
        title_zh="原地操作与版本计数器",
        intro_zh=(
            "你要编写让原地操作变得安全的簿记工作：由一个张量、它的视图以及它被分离出的别名"
            "共享的版本计数器，节点在 `backward()` 时对它保存的张量所做的检查（附带 PyTorch "
            "那条著名的消息），以及拒绝以原地方式修改需要梯度的叶子节点。"
        ),
    ),
    Assignment(
        name="rebuilding_tensors",
        topic="rebuild",
        title="Rebuilding tensors: tensor() cuts, stack and cat keep",
        lecture="course/05_rebuilding_tensors.ipynb",
        intro=(
            "You write four ways of putting values together: the `tensor()` factory "
            "(which copies values out of the graph), `stack` and `cat` (which keep it, with "
            "their backward), and `x[i] = v` (recorded in `x`'s history as `CopySlices`)."
        ),
        title_zh="重建张量：tensor() 切断计算图，stack 与 cat 保留计算图",
        intro_zh=(
            "你要编写把数值组合在一起的四种方式：`tensor()` 工厂函数（它把数值复制出计算图），"
            "`stack` 和 `cat`（它们保留计算图，并带有各自的反向计算），以及 `x[i] = v`"
            "（在 `x` 的历史中记录为 `CopySlices`）。"
        ),
    ),
    Assignment(
        name="devices",
        topic="devices",
        title="Devices and dtypes: .to() is a recorded copy",
        lecture="course/06_devices.ipynb",
        intro=(
            "You write `.to()`: it returns the tensor itself when nothing changes, and "
            "otherwise a copy recorded as `ToCopyBackward0`, whose gradient goes back to the "
            "source's device and dtype. Everything a CPU can show is graded on the CPU "
            "(`.to(dtype)`, `.to('cpu')`, leaves, gradients in the source dtype); moving "
            "between devices is graded where a GPU is present."
        ),
        title_zh="设备与 dtype：.to() 是一次被记录的复制",
        intro_zh=(
            "你要编写 `.to()`：没有任何改变时它返回张量本身，否则返回一个记录为 "
            "`ToCopyBackward0` 的副本，其梯度会回到源张量的设备和 dtype。CPU 能展示的一切都在 "
            "CPU 上评分（`.to(dtype)`、`.to('cpu')`、叶子节点、以源 dtype 表示的梯度）；在设备"
            "之间移动则在有 GPU 的地方评分。"
        ),
    ),
)

BY_NAME = {a.name: a for a in ASSIGNMENTS}
