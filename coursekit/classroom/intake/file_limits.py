"""What a submission may bring into the course: regular files, bounded, in plain names.

Collect (the exchange, an LMS download, the archives in it) and grade (reading submitted/)
read students' files only through these helpers. A symlink would hand in the instructor's
own files, a FIFO blocks its reader for ever, a device or a zip bomb fills memory or disk,
a `../` name writes outside the course. Each refusal is an `Unsafe` whose text says what was
wrong, for collect's summary and the report.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from coursekit.i18n import _

FILE_MODE = 0o644  # collected files: never a mode from a student's archive (setuid, 0777)
NAME_MAX = 255  # bytes in one file name on Linux file systems
CHUNK = 1 << 20


class Unsafe(Exception):
    """A file or archive refused, with the reason in words."""


@dataclass(frozen=True)
class Limits:
    """What one student's entry (an upload with its archives, an exchange folder) may hold."""

    max_bytes: int = 64 * 2**20  # extracted or copied, all files together
    max_files: int = 1000
    max_ratio: int = 200  # uncompressed / compressed size of a zip member
    max_depth: int = 2  # archives inside archives inside the entry


DEFAULT_LIMITS = Limits()


class Budget:
    """Bytes and files left to one entry; every level of archives draws on the same one."""

    def __init__(self, limits: Limits):
        self.limits, self.bytes, self.files = limits, limits.max_bytes, limits.max_files

    def take_file(self) -> None:
        self.files -= 1
        if self.files < 0:
            raise Unsafe(_("more than {count} files").format(count=self.limits.max_files))

    def take_bytes(self, n: int) -> None:
        self.bytes -= n
        if self.bytes < 0:
            raise Unsafe(_("more than {size} in all").format(size=_mib(self.limits.max_bytes)))


def kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, name in [
        (stat.S_ISLNK, _("a symbolic link")),
        (stat.S_ISFIFO, _("a named pipe (FIFO)")),
        (stat.S_ISSOCK, _("a socket")),
        (stat.S_ISCHR, _("a device")),
        (stat.S_ISBLK, _("a device")),
        (stat.S_ISDIR, _("a folder")),
    ]:
        if test(mode):
            return name
    return _("not a regular file")


def _is(name, mode: int) -> str:
    return _("{name} is {kind}").format(name=name, kind=kind(mode))


def open_regular(path: Path, shown: str = ""):
    """`path` opened for reading when it is a regular file, never through a symlink and never
    blocking on a FIFO; Unsafe otherwise (checked on the open file: no race with a swap)."""
    shown = shown or path.name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        mode = os.lstat(path).st_mode if os.path.lexists(path) else 0
        said = _is(shown, mode) if mode else f"{shown}: {error.strerror}"
        raise Unsafe(said) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Unsafe(_is(shown, mode))
    return os.fdopen(fd, "rb")


def check_name(relative: str) -> None:
    """A name from a student (archive member, folder entry) that stays inside its folder."""
    path = PurePosixPath(relative.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise Unsafe(_("the name {name} points outside its folder").format(name=repr(relative)))
    long = [part for part in path.parts if len(os.fsencode(part)) > NAME_MAX]
    if long:
        said = _("a name longer than {count} bytes ({name}...)")
        raise Unsafe(said.format(count=NAME_MAX, name=repr(long[0][:40])))


def copy_entry(src: Path, dest: Path, budget: Budget, ignore=None) -> None:
    """Copy the file or folder `src` (never through a symlink) to `dest`: regular files only,
    mode 0644; Unsafe on the first entry that is anything else or breaks the budget.
    `ignore` is a shutil.copytree-style callable (nbgrader's ignore_patterns)."""
    mode = os.lstat(src).st_mode
    if not stat.S_ISDIR(mode):
        with open_regular(src) as source:
            return _write(source, dest, budget, src.name)
    for folder, dirs, files in os.walk(src):
        skipped = set(ignore(folder, dirs + files)) if ignore else set()
        dirs[:] = [d for d in dirs if d not in skipped]
        for name in dirs:
            mode = os.lstat(Path(folder, name)).st_mode
            if not stat.S_ISDIR(mode):  # os.walk lists a symlink to a folder among folders
                raise Unsafe(_is(Path(folder, name).relative_to(src), mode))
        for name in sorted(set(files) - skipped):
            relative = Path(folder, name).relative_to(src)
            with open_regular(Path(folder, name), str(relative)) as source:
                _write(source, dest / relative, budget, str(relative))


def _write(source, dest: Path, budget: Budget, shown: str, compressed=None) -> None:
    try:
        write_file(source, dest, budget, compressed)
    except OSError as error:  # a name too long for the disk, a file where a folder goes
        said = _("{name} cannot be written ({why})").format(name=shown, why=error.strerror)
        raise Unsafe(said) from None


def write_file(source, dest: Path, budget: Budget, compressed: int | None = None) -> None:
    """Stream `source` into `dest` (mode 0644), drawing on `budget`; a zip member also may not
    expand beyond max_ratio times its compressed size, whatever its header claims."""
    budget.take_file()
    cap = None if compressed is None else max(compressed, 1) * budget.limits.max_ratio
    dest.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(dest, "wb") as out:
        os.fchmod(out.fileno(), FILE_MODE)
        while chunk := source.read(CHUNK):
            written += len(chunk)
            budget.take_bytes(len(chunk))
            if cap is not None and written > cap and written > CHUNK:
                said = _("{name} expands more than {ratio} times (a zip bomb?)")
                raise Unsafe(said.format(name=dest.name, ratio=budget.limits.max_ratio))
            out.write(chunk)


def extract_members(opened: zipfile.ZipFile, members, dest: Path, budget: Budget) -> None:
    """Write the `members` of an open zip under `dest`, after checking their names, types and
    declared sizes; the bytes actually written are counted again, since a header can lie."""
    members = [m for m in members if not m.is_dir()]
    _check_members(members, budget)
    for member in members:
        try:
            with opened.open(member) as source:
                _write(source, dest / member.filename, budget, member.filename,
                       member.compress_size)  # fmt: skip
        except (zipfile.BadZipFile, NotImplementedError, EOFError, RuntimeError) as error:
            said = _("{name} cannot be read ({why})").format(name=member.filename, why=error)
            raise Unsafe(said) from None


def open_archives(path: Path, budget: Budget, depth: int = 1) -> None:
    """Every zip at or under `path` replaced by a folder of the same name with its contents,
    level after level up to max_depth, within `budget`."""
    found = [path] if path.is_file() else sorted(path.rglob("*"))
    for archive in found:
        if archive.is_file() and archive.name.lower().endswith(".zip"):
            _unpack_in_place(archive, budget, depth)


def _unpack_in_place(archive: Path, budget: Budget, depth: int) -> None:
    if depth > budget.limits.max_depth:
        said = _("{name}: archives nested deeper than {depth}")
        raise Unsafe(said.format(name=archive.name, depth=budget.limits.max_depth))
    if not zipfile.is_zipfile(archive):
        raise Unsafe(_("{name} is named like a zip but is not one").format(name=archive.name))
    target = Path(tempfile.mkdtemp(dir=archive.parent, prefix=".unpacking-"))
    try:
        with zipfile.ZipFile(archive) as opened:
            extract_members(opened, opened.infolist(), target, budget)
        open_archives(target, budget, depth + 1)
    except zipfile.BadZipFile as error:
        shutil.rmtree(target)
        said = _("{name} cannot be read as a zip ({why})").format(name=archive.name, why=error)
        raise Unsafe(said) from None
    except Unsafe as why:
        shutil.rmtree(target)
        raise Unsafe(f"{archive.name}: {why}") from None
    archive.unlink()
    target.rename(archive)


def _check_members(members, budget: Budget) -> None:
    limits = budget.limits
    if len(members) > budget.files:
        said = _("{count} files, more than the {allowed} allowed")
        raise Unsafe(said.format(count=len(members), allowed=limits.max_files))
    for member in members:
        check_name(member.filename)
        mode = member.external_attr >> 16
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            raise Unsafe(_is(member.filename, mode))
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > CHUNK and ratio > limits.max_ratio:
            said = _("{name} expands {ratio} times (a zip bomb?)")
            raise Unsafe(said.format(name=member.filename, ratio=f"{ratio:.0f}"))
    declared = sum(m.file_size for m in members)
    if declared > budget.bytes:
        said = _("{size} when unpacked, more than {allowed}")
        raise Unsafe(said.format(size=_mib(declared), allowed=_mib(limits.max_bytes)))


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB"
