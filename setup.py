"""The wheel (the instructor's distribution) carries the lectures, the exercises and the
nbgrader source (coursekit/_content), so that `minigrad-course start` and `init` work wherever
the package is installed; everything else is in pyproject.toml. The student's distribution is
written by `minigrad-course edition DIR` (coursekit/content.py says what each carries)."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithContent(build_py):
    def run(self):
        super().run()
        sys.path.insert(0, str(HERE))
        from coursekit.content import INSTRUCTOR, carry  # what it carries, chosen once

        content = Path(self.build_lib) / "coursekit" / "_content"
        if content.exists():
            import shutil

            shutil.rmtree(content)
        carry(INSTRUCTOR, content)


setup(cmdclass={"build_py": BuildWithContent})
