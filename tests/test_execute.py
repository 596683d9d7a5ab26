"""The pipeline's Execute: a kernel that dies before its first reply (not the submission's
doing: two kernels started at once took one port) is started again; one that keeps dying
is reported as nbclient reports it."""

from __future__ import annotations

import nbformat
import pytest

from coursekit.classroom.grading.execute import ResilientExecute

STARTUP_DEATH = "Kernel died before replying to kernel_info"  # nbclient's words
STARTUP_SILENCE = "Kernel didn't respond in 60 seconds"  # a kernel that lost its port and hung


def _notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 6 * 7\nprint(x)")]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _dying_first(monkeypatch, deaths: int, words=STARTUP_DEATH):
    real = ResilientExecute.start_new_kernel_client
    left, managers = [deaths], []

    def start(self):
        client = real(self)  # a real kernel, then the death nbclient reports at startup
        if left[0]:
            left[0] -= 1
            managers.append(self.km)
            raise RuntimeError(words)
        return client

    monkeypatch.setattr(ResilientExecute, "start_new_kernel_client", start)
    return left, managers


@pytest.mark.parametrize("words", [STARTUP_DEATH, STARTUP_SILENCE])
def test_a_kernel_that_dies_starting_is_started_again(monkeypatch, words):
    left, managers = _dying_first(monkeypatch, 1, words)
    nb, _ = ResilientExecute().preprocess(_notebook(), {})
    assert left == [0] and nb.cells[0].outputs[0]["text"] == "42\n"
    (first,) = managers
    assert not first.has_kernel  # the first kernel was shut down, not left running


def test_a_kernel_that_keeps_dying_is_reported(monkeypatch):
    _dying_first(monkeypatch, 5)
    with pytest.raises(RuntimeError, match=STARTUP_DEATH):
        ResilientExecute(start_attempts=2).preprocess(_notebook(), {})
