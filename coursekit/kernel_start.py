"""A Jupyter kernel that never came up, told apart from a notebook that failed.

Two kernels started at once can take the same port (jupyter_client picks a free port, then
the kernel binds it): the loser dies before its first reply, or hangs until nbclient gives
up waiting. Nothing of the notebook ran yet, so starting another kernel is safe.
"""

from __future__ import annotations

START_ATTEMPTS = 3
_NEVER_STARTED = (
    "Kernel died before replying to kernel_info",  # nbclient's words for each case
    "Kernel didn't respond in",
)


def never_started(exc: BaseException) -> bool:
    """Whether nbclient raised `exc` because the kernel never answered, before any cell ran."""
    return isinstance(exc, RuntimeError) and any(text in str(exc) for text in _NEVER_STARTED)
