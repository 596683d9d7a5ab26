"""What tests/test_browser.py needs around the browser: Debian's Chromium (installed with apt-get
where missing), a JupyterLab started by tools/lab.py on a free port with a token, screenshots
kept as artifacts, and the few JupyterLab gestures the tests repeat."""

from __future__ import annotations

import io
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts" / "browser"  # git-ignored; a stable place to look at
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}
# Everything the kernels of the lab compute runs on one thread: the machine is shared.
ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def chromium_executable() -> str:
    """Debian's chromium, installed with apt-get when it is missing (CI runs as root)."""
    found = shutil.which("chromium")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt is None:
        pytest.skip("Debian's chromium is not installed and there is no apt-get to install it")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["update", "-qq"], ["install", "-y", "-qq", "chromium"]):
        done = subprocess.run([*sudo, apt, *step], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            pytest.fail(
                f"apt-get {' '.join(step)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
            )
    found = shutil.which("chromium")
    assert found, "apt-get installed chromium, yet no `chromium` on PATH"
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """A running JupyterLab: its address, token, the folder it serves, and its log."""

    base: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen

    def url(self, path: str = "") -> str:
        return f"{self.base}/{path}{'&' if '?' in path else '?'}token={self.token}"

    def stop(self):
        # tools/lab.py and jupyter share the process group started for them; the server
        # shuts its kernels down on SIGTERM.
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def start_lab(workdir: Path, root: Path, lab_args: list[str]) -> Lab:
    """`python tools/lab.py LAB_ARGS`, serving `root`, with its own Jupyter config, settings,
    data and workspace folders under `workdir`, so that no setting of the person running the
    tests leaks in."""
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, **ONE_THREAD}
    for var, sub in (
        ("JUPYTER_CONFIG_DIR", "jupyter-config"),
        ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"),
        ("JUPYTER_RUNTIME_DIR", "jupyter-runtime"),
        ("JUPYTER_DATA_DIR", "jupyter-data"),  # holds nbgrader's cache of submissions
        ("IPYTHONDIR", "ipython"),
    ):
        env[var] = str(workdir / sub)
        (workdir / sub).mkdir(parents=True, exist_ok=True)
    # No "would you like news?" toast over the pages being screenshotted.
    notifications = workdir / "lab-settings" / "@jupyterlab" / "apputils-extension"
    notifications.mkdir(parents=True, exist_ok=True)
    (notifications / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    log = workdir / "jupyterlab.log"
    command = [
        sys.executable,
        str(REPO / "tools" / "lab.py"),
        *lab_args,
        f"--port={port}",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
    ]
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    lab = Lab(f"http://127.0.0.1:{port}", token, root, log, process)
    _wait_until_up(lab)
    return lab


def _wait_until_up(lab: Lab, timeout=180):
    request = urllib.request.Request(
        f"{lab.base}/api/status", headers={"Authorization": f"token {lab.token}"}
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited:\n{lab.log.read_text()[-5000:]}")
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    lab.stop()
    raise RuntimeError(f"JupyterLab did not answer in {timeout} s:\n{lab.log.read_text()[-5000:]}")


def screenshot(page, folder: Path, name: str, target=None) -> Path:
    """Save a PNG of the page (or of one element) under the test's folder and copy it to
    test-artifacts/browser/."""
    path = folder / f"{name}.png"
    (target or page).screenshot(path=str(path))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, ARTIFACTS / path.name)
    return path


# --- JupyterLab gestures ------------------------------------------------------------------------
CURRENT_NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"


def menu(page, *path: str):
    """Click through the menu bar, e.g. menu(page, "Run", "Run All Cells")."""
    page.locator("#jp-menu-panel").get_by_role("menuitem", name=path[0], exact=True).click()
    for item in path[1:]:  # submenus (Theme, ...) carry no menuitem role: match labels
        page.locator(".lm-Menu .lm-Menu-itemLabel").get_by_text(item, exact=True).last.click()


def wait_for_notebook(page, path: Path, timeout=120_000):
    """Wait until the notebook at `path` is open in front, all its code cells are on the page
    and its kernel is connected and idle (Run All before that runs nothing, or only a part)."""
    import nbformat

    code_cells = sum(c.cell_type == "code" for c in nbformat.read(path, as_version=4).cells)
    page.get_by_role("tab", name=path.name).wait_for(timeout=timeout)
    cells = page.locator(f"{CURRENT_NOTEBOOK} .jp-CodeCell")
    page.wait_for_function(
        "([s, n]) => document.querySelectorAll(s + ' .jp-CodeCell').length === n",
        arg=[CURRENT_NOTEBOOK, code_cells],
        timeout=timeout,
    )
    assert cells.count() == code_cells
    page.locator("#jp-main-statusbar").get_by_text("| Idle").wait_for(timeout=timeout)


# Execution counts of the current notebook's code cells (null: not run yet, NaN: running).
_COUNTS = """selector => [...document.querySelectorAll(selector + ' .jp-CodeCell')].map(cell => {
  const prompt = cell.querySelector('.jp-InputPrompt').textContent.trim();
  const number = prompt.match(/\\d+/);
  return prompt.includes('*') ? NaN : (number ? Number(number[0]) : null);
})"""
# Run All stops at the first error. It is done when every code cell ran after `before`, or when
# a cell that ran after `before` shows an error and nothing runs any more (a traceback, or a
# test cell's verdict, which shows as its text alone: coursekit.exercises.grading.NotPassed).
_RUN_FINISHED = """([selector, before]) => {
  const cells = [...document.querySelectorAll(selector + ' .jp-CodeCell')];
  const counts = (%s)(selector);
  if (counts.some(Number.isNaN)) return false;
  if (counts.length > 0 && counts.every(n => n !== null && n > before)) return true;
  const idle = document.querySelector(
    selector + ' .jp-Notebook-ExecutionIndicator[data-status="idle"]');
  return idle !== null && cells.some((cell, i) => counts[i] > before &&
    /Traceback \\(most recent call last\\)|NotPassed: /.test(
      cell.querySelector('.jp-OutputArea').textContent));
}""".replace("%s", _COUNTS)


def run_all_cells(page, timeout=300_000):
    """Run > Run All Cells, and wait until that run is over."""
    counts = page.evaluate(_COUNTS, CURRENT_NOTEBOOK)
    before = max((n for n in counts if n is not None and n == n), default=0)  # n != n: NaN
    menu(page, "Run", "Run All Cells")
    page.wait_for_function(_RUN_FINISHED, arg=[CURRENT_NOTEBOOK, before], timeout=timeout)


def error_outputs(page) -> list[str]:
    """Texts of the tracebacks shown in the current notebook."""
    return (
        page.locator(f"{CURRENT_NOTEBOOK} .jp-OutputArea-output")
        .filter(has_text="Traceback (most recent call last)")
        .all_inner_texts()
    )


def light_and_dark(png: bytes) -> tuple[float, float]:
    """(median brightness of a picture's outer border, mean brightness of its darkest 1%
    pixels), 0 to 255: a light border with dark ink is a picture that brings its own
    background. The median, because labels may touch a tightly cropped plot's edge."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    w, h = image.size
    pixels = image.load()
    border = [pixels[x, y] for x in range(w) for y in (0, h - 1)]
    border += [pixels[x, y] for y in range(h) for x in (0, w - 1)]
    ink = sorted(image.tobytes())[: max(1, w * h // 100)]
    return sorted(border)[len(border) // 2], sum(ink) / len(ink)
