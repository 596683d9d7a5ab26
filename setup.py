"""The wheel carries the lectures and the exercises (coursekit/_content), so that
`minigrad-course start` works wherever the package is installed; everything else is in
pyproject.toml."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithContent(build_py):
    def run(self):
        super().run()
        sys.path.insert(0, str(HERE))
        from coursekit.content import copy_content  # what `start` copies, chosen once

        content = Path(self.build_lib) / "coursekit" / "_content"
        if content.exists():
            import shutil

            shutil.rmtree(content)
        copied = copy_content(content)
        # the installed layout mirrors the clone's folder names (coursekit.content.FOLDERS)
        copied["lectures"].rename(content / "course")


setup(cmdclass={"build_py": BuildWithContent})
