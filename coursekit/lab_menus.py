"""JupyterLab's own menus in the course's language by default: `make lab COURSE_LANG=zh-CN`
(tools/lab.py) and a class made in Chinese on its hub. JupyterLab translates its menus with a
language pack (jupyterlab-language-pack-zh-CN, one of the course's dependencies); which one is
a setting, Settings > Language. Here its default is set, in JupyterLab's app settings
(overrides.json), so that a person's own choice (their user settings) still wins.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from coursekit.languages import DEFAULT

LANGUAGE_PLUGIN = "@jupyterlab/translation-extension:plugin"  # Settings > Language
OVERRIDES = "overrides.json"


def menus_in(language: str, folder: Path) -> list[str]:
    """JupyterLab's command-line options for its menus in `language` by default ([] for
    English), its app settings written in `folder` (made afresh): a copy of the installation's,
    the locale set among their overrides."""
    if language == DEFAULT:
        return []
    from jupyterlab.commands import get_app_dir

    installed = Path(get_app_dir()) / "settings"
    shutil.rmtree(folder, ignore_errors=True)
    if installed.is_dir():
        shutil.copytree(installed, folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / OVERRIDES
    overrides = json.loads(path.read_text()) if path.is_file() else {}
    overrides.setdefault(LANGUAGE_PLUGIN, {})["locale"] = language.replace("-", "_")
    path.write_text(json.dumps(overrides, indent=1))
    return [f"--LabApp.app_settings_dir={folder}"]
