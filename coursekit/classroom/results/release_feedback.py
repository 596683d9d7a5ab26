"""`minigrad-course release-feedback`: the feedback pages into nbgrader's exchange, where each
student's Assignment List ("Fetch Feedback") or `nbgrader fetch_feedback` finds their own.

nbgrader's release_feedback (ExchangeReleaseFeedback) copies feedback/<student>/<assignment>/
<notebook>.html to <exchange>/<course>/feedback/<md5(secret + notebook)>.html, the secret being
the submission_secret.txt that the student's `submit` wrote into the entry (collected with it)
and kept in their own nbgrader cache; the feedback folder is 0711, so a page is found only by
whoever knows the secret. This module puts the secret and timestamp.txt beside the pages, as
nbgrader's release wants them, lets nbgrader release, and then narrows each released page to
its student: group = the student's own group (the hub puts the instructor in it), mode 0640.
A submission collected from an LMS download has no secret: its page is listed as not
releasable (the instructor hands it out another way).
"""

from __future__ import annotations

import grp
import os
import shutil
from pathlib import Path

from coursekit.classroom.course import check_result

SECRET, TIMESTAMP = "submission_secret.txt", "timestamp.txt"


def release_feedback(course, assignments=(), student: str | None = None):
    """Release each page made by `minigrad-course feedback`; returns (released, problems):
    (student, assignment, notebook) triples and sentences."""
    from nbgrader.utils import notebook_hash

    released, problems = [], []
    wanted = set(assignments or course.assignments())
    pairs = [(s, a) for s, a in course.submitted() if a in wanted and student in (None, s)]
    ready: dict[str, list[str]] = {}
    for who, assignment in pairs:
        pages = course.path("feedback", who, assignment)
        submission = course.submission_dir(who, assignment)
        if not sorted(pages.glob("*.html")):
            problems.append(f"{who}/{assignment}: no feedback page yet (run `feedback` first)")
            continue
        if not (submission / SECRET).is_file():
            problems.append(
                f"{who}/{assignment}: not handed in through the exchange (no {SECRET}), so "
                f"nbgrader cannot hand its feedback back: send {pages} another way"
            )
            continue
        for name in (SECRET, TIMESTAMP):
            if (submission / name).is_file():
                shutil.copyfile(submission / name, pages / name)
                (pages / name).chmod(0o600)
        ready.setdefault(assignment, []).append(who)
    api = course.api()
    outbound = Path(course.config().Exchange.root, course.course_id, "feedback")
    for assignment, students in sorted(ready.items()):
        for who in sorted(students):
            check_result(api.release_feedback(assignment, who), f"release_feedback {assignment}")
            pages = course.path("feedback", who, assignment)
            secret = (pages / SECRET).read_text()
            for page in sorted(pages.glob("*.html")):
                name = notebook_hash(secret=secret, notebook_id=page.stem)
                _only_for(outbound / f"{name}.html", who)
                released.append((who, assignment, page.stem))
    return released, problems


def _only_for(page: Path, student: str) -> None:
    """The student's own group and 0640, where this user may give the page that group."""
    try:
        gid = grp.getgrnam(student).gr_gid
        os.chown(page, -1, gid)
    except (KeyError, PermissionError):  # no such group, or not a member: nbgrader's 0644
        return
    page.chmod(0o640)
