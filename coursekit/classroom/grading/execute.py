"""nbgrader's Execute, except that a dying kernel costs one cell instead of the notebook.

Plain nbgrader stops a submission whose kernel dies (`os._exit`, a segfault, the memory
limit) and records no grade at all. Here the cell that killed the kernel gets an error output
saying so; a new kernel then re-runs the cells before it (without the killers, outputs
discarded) and grading goes on with the next cell, so every test that does not depend on the
killer still counts.
"""

from __future__ import annotations

import copy

from nbclient.exceptions import DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Integer

from coursekit.kernel_start import START_ATTEMPTS, never_started

KERNEL_DIED = "KernelDied"  # the ename of the error output a killer cell gets


class ResilientExecute(Execute):
    max_restarts = Integer(3, help="New kernels started for one notebook at most").tag(config=True)
    start_attempts = Integer(
        START_ATTEMPTS, help="Kernels started before the first cell at most"
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        # A kernel that never came up is not the submission's doing: start another.
        for attempt in range(1, self.start_attempts + 1):
            self._killers: set[int] = set()
            try:
                return super().preprocess(nb, resources, km)
            except RuntimeError as exc:
                if not never_started(exc) or attempt == self.start_attempts:
                    raise
                self._cleanup_kernel()  # the dead one's manager: its process, its sockets

    def preprocess_cell(self, cell, resources, index):
        if len(self._killers) > self.max_restarts:
            self._mark(cell, "not run: the kernel died too often in earlier cells")
            return cell, self.resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._killers.add(index)
            self._mark(
                cell,
                "the kernel died while running this cell; the cells after it ran "
                "in a new kernel, with the cells before it run again",
            )
            self._restart(index)
            return cell, self.resources

    def _mark(self, cell, message: str) -> None:
        if cell.cell_type != "code":
            return
        error = NotebookNode(output_type="error", ename=KERNEL_DIED, evalue=message)
        error.traceback = [f"{KERNEL_DIED}: {message}"]
        cell.outputs.append(error)

    def _restart(self, index: int) -> None:
        """A new kernel in the state the cells before `index` leave (killers left out)."""
        while len(self._killers) <= self.max_restarts:
            self._cleanup_kernel()
            self.km = self.create_kernel_manager()
            self.start_new_kernel()
            self.start_new_kernel_client()
            try:
                for earlier in range(index):
                    cell = self.nb.cells[earlier]
                    if earlier not in self._killers and cell.cell_type == "code":
                        self.execute_cell(copy.deepcopy(cell), earlier, store_history=False)
                return
            except DeadKernelError:
                self._killers.add(earlier)
                self._mark(self.nb.cells[earlier], "the kernel died when this cell was run again")
