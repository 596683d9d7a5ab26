"""An LMS download opened safely, entry by entry: nbgrader zip_collect's extractor plugin.

The download (a zip or a folder) holds one top-level entry per student upload: a Canvas file
`lastfirst_id_subid_name`, a Moodle folder `Name_id_assignsubmission_file_`, or a folder per
student. Each entry is unpacked on its own, within the limits (intake.Limits), the zips a
student uploaded opened in place, level after level: a zip `x.zip` becomes a folder `x.zip`
with its contents, so the entry's top-level name, the only thing that says whose it is, is
kept. An entry with anything unsafe in it is left out whole, with the reason. Each entry's
time (its newest member's date_time in a zip, read as UTC; its newest file's mtime in a
folder) is kept for collect: it is when the student handed it in.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from nbgrader.plugins import ExtractorPlugin
from traitlets import Int, Unicode

from coursekit.classroom.intake.file_limits import (
    Budget,
    Limits,
    Unsafe,
    check_name,
    copy_entry,
    extract_members,
    open_archives,
)


class SafeExtractor(ExtractorPlugin):
    """Unpacks `download` (not nbgrader's archive folder) into the extracted folder."""

    download = Unicode("", help="The LMS download: a zip or a folder").tag(config=True)
    max_bytes = Int(Limits.max_bytes, help="Bytes one entry may unpack to").tag(config=True)
    max_files = Int(Limits.max_files, help="Files one entry may hold").tag(config=True)
    max_ratio = Int(Limits.max_ratio, help="Largest expansion of a zip member").tag(config=True)
    max_depth = Int(Limits.max_depth, help="Zips inside zips in one entry").tag(config=True)

    def extract(self, archive_path: str, extracted_path: str) -> None:
        limits = Limits(self.max_bytes, self.max_files, self.max_ratio, self.max_depth)
        self.problems = unpack_download(Path(self.download), Path(extracted_path), limits)
        self.times = entry_times(Path(self.download))


def entry_times(download: Path) -> dict[str, datetime]:
    """Top-level name -> the newest time among its files (naive UTC), read without unpacking."""
    times: dict[str, datetime] = {}
    if download.is_dir():
        for entry in sorted(os.listdir(download)):
            path = download / entry
            files = [path] if not path.is_dir() else path.rglob("*")
            stamps = [f.lstat().st_mtime for f in files if f.is_file() and not f.is_symlink()]
            if stamps:
                newest = datetime.fromtimestamp(max(stamps), timezone.utc)
                times[entry] = newest.replace(tzinfo=None)
        return times
    with zipfile.ZipFile(download) as opened:
        for member in opened.infolist():
            parts = PurePosixPath(member.filename).parts
            if parts and not member.is_dir():
                time = datetime(*member.date_time)
                times[parts[0]] = max(time, times.get(parts[0], time))
    return times


def unpack_download(download: Path, dest: Path, limits: Limits) -> list[str]:
    """Each top-level entry of `download` into `dest`; returns one sentence per entry left out."""
    problems = []
    for name, unpack in _entries(download):
        budget = Budget(limits)
        try:
            check_name(name)  # before any path is made of it
        except Unsafe as why:
            problems.append(f"{why}; left out")
            continue
        try:
            unpack(dest / name, budget)
            open_archives(dest / name, budget)
        except Unsafe as why:
            said = str(why) if str(why).startswith(name) else f"{name}: {why}"
            problems.append(f"{said}; left out")
            _remove(dest / name)
    return problems


def _entries(download: Path):
    """(top-level name, function that writes that entry to a path within a budget)."""
    if download.is_dir():
        for entry in sorted(os.listdir(download)):
            yield entry, lambda to, budget, entry=entry: copy_entry(download / entry, to, budget)
        return
    with zipfile.ZipFile(download) as opened:
        groups: dict[str, list] = {}
        for member in opened.infolist():
            parts = PurePosixPath(member.filename).parts
            groups.setdefault(parts[0] if parts else "", []).append(member)
        for top, members in sorted(groups.items()):

            def unpack(to, budget, members=members):
                extract_members(opened, members, to.parent, budget)

            yield top, unpack


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
