"""Start JupyterLab on the course, as a student or as an instructor (`make lab`).

    python tools/lab.py [--role student|instructor] [--root DIR] [--course-dir DIR]
                        [--port N] [--lang LANG] [any jupyter lab option ...]

student (default): JupyterLab on the repository, opening course/00_start_here.ipynb. The
    exercises in exercises/ are released into a local nbgrader exchange (.lab/exchange; CPU-only
    copies where there is no GPU), so the Assignments panel lists them; "Fetch" copies one
    into my_assignments/, and every notebook has nbgrader's Validate button.
instructor: JupyterLab in an instructor's course directory (default: the demo class, built
    with `minigrad-course demo` when missing), where nbgrader's Formgrader shows the
    gradebook, the submissions and their scores.
--lang (`make lab COURSE_LANG=zh-CN`): the student's notebooks in that language: the lectures
    as generated copies in course-<LANG>/ (course/ is never written), the released exercises
    in it too, and JupyterLab's own menus in it by default (its language pack, from the
    course's dependencies; Settings > Language still changes it). English (the default) opens
    course/ itself.

Options this script does not know are passed on to `jupyter lab`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from coursekit.exercises.assignments import ASSIGNMENTS, FETCH_DIR
from coursekit.lab_menus import menus_in
from coursekit.languages import DEFAULT, LANGUAGES, checked, write_in_language

REPO = Path(__file__).resolve().parents[1]
COURSE_ID = "minigrad-course"
START_PAGE = "course/00_start_here.ipynb"
STATE_DIR = ".lab"  # the student role's exchange and nbgrader config (git-ignored)

DEMO_DIR = "build/demo-course"  # where `minigrad-course demo` puts it by default


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--role", choices=("student", "instructor"), default="student")
    parser.add_argument("--root", type=Path, default=REPO, help="repository (student role)")
    parser.add_argument("--course-dir", type=Path, help="course directory (instructor role)")
    parser.add_argument("--port", type=int, default=8888)
    parser.add_argument("--lang", default=DEFAULT, help=f"one of {', '.join(LANGUAGES)}")
    args, lab_args = parser.parse_known_args(argv)
    language = checked(args.lang)
    if args.role == "student":
        cwd, env, lab_args = student_lab(args.root.resolve(), lab_args, language)
    else:
        cwd, env, lab_args = instructor_lab(args.course_dir, lab_args)
    command = [_tool("jupyter"), "lab", f"--port={args.port}", *lab_args]
    if os.geteuid() == 0:  # containers and CI run as root; Jupyter refuses without this
        command.append("--allow-root")
    print(f"lab: starting JupyterLab on http://localhost:{args.port} (it prints the address "
          "with its token when ready, in a few seconds; Ctrl-C stops it)", flush=True)  # fmt: skip
    print("+", " ".join(command), f"(in {cwd})", flush=True)
    os.chdir(cwd)
    os.execvpe(command[0], command, env)  # Ctrl-C and signals go straight to JupyterLab


def student_lab(root: Path, lab_args, language: str = DEFAULT):
    state = root / STATE_DIR
    config_dir = state / "config"
    config_dir.mkdir(parents=True, exist_ok=True)
    # Read by the Assignments panel and the Validate button (through JUPYTER_CONFIG_PATH),
    # so that the repository itself needs no nbgrader_config.py.
    (config_dir / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {str(state / 'exchange')!r}\n"
        f"c.Exchange.assignment_dir = {str(root / FETCH_DIR)!r}\n"
    )
    (root / FETCH_DIR).mkdir(exist_ok=True)
    print("lab: releasing the exercises into the Assignment List (a few seconds)", flush=True)
    release_exercises(state, root / "exercises", language)
    env = dict(os.environ)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
        p for p in (str(config_dir), env.get("JUPYTER_CONFIG_PATH")) if p
    )
    start_page = START_PAGE
    if language != DEFAULT:
        lectures = lectures_in(root, language)
        start_page = f"{lectures.name}/{Path(START_PAGE).name}"
        print(f"lab: the lectures in {language} are in {lectures.name}/ (made from course/)")
    start = f"--LabApp.default_url=/lab/tree/{start_page}"
    lab_args = [*menus_in(language, state / f"lab-settings-{language}"), *lab_args]
    return root, env, [f"--ServerApp.root_dir={root}", start, *lab_args]


def lectures_in(root: Path, language: str) -> Path:
    """course/'s lectures (and the capstone's script) in `language`, made afresh in
    course-<language>/ beside it: the same depth, so their relative links still resolve."""
    target = root / f"course-{language}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    for path in sorted((root / "course").glob("*.ipynb")):
        shutil.copy2(path, target / path.name)
        write_in_language(target / path.name, language)
    shutil.copy2(root / "course" / "capstone_train.py", target / "capstone_train.py")
    return target


def release_exercises(state: Path, exercises: Path, language: str = DEFAULT):
    """Release every assignment of exercises/ into the exchange with nbgrader's own exchange
    code (what `nbgrader release_assignment` does, minus the gradebook). Without a GPU the
    released copies leave out the CUDA test cells, as a CPU-only course does (`minigrad-course init
    --cpu-only`), so that a right answer validates."""
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeReleaseAssignment
    from traitlets.config import Config

    import minigrad
    from coursekit.classroom.setup.init_course import drop_cuda_cells

    release = state / "release"
    shutil.rmtree(release, ignore_errors=True)
    for a in ASSIGNMENTS:  # under their list ids, so the Assignment List is in course order
        shutil.copytree(
            exercises / a.name, release / a.list_id, ignore=shutil.ignore_patterns(".*")
        )
    for notebook in release.glob("*/*.ipynb"):
        write_in_language(notebook, language)
        if not minigrad.cuda.is_available():
            drop_cuda_cells(notebook)
    for folder in sorted(p for p in release.iterdir() if p.is_dir()):
        config = Config()
        config.CourseDirectory.root = str(state)
        config.CourseDirectory.release_directory = release.name
        config.CourseDirectory.course_id = COURSE_ID
        config.CourseDirectory.assignment_id = folder.name
        config.Exchange.root = str(state / "exchange")
        config.ExchangeReleaseAssignment.force = True  # the committed exercises win
        coursedir = CourseDirectory(config=config)
        ExchangeReleaseAssignment(coursedir=coursedir, config=config).start()


def instructor_lab(course_dir, lab_args):
    course = (course_dir or REPO / DEMO_DIR).resolve()
    if not (course / "nbgrader_config.py").is_file():
        if course_dir is not None:
            sys.exit(f"{course} is not a course directory (no nbgrader_config.py)")
        print(f"lab: building the demo class in {course} (minigrad-course demo; a few minutes, "
              "the first time only)", flush=True)  # fmt: skip
        subprocess.run([_tool("minigrad-course"), "demo", str(course)], check=True)
    # nbgrader's formgrader reads nbgrader_config.py from the server's working directory.
    return course, dict(os.environ), [f"--ServerApp.root_dir={course}", *lab_args]


def _tool(name):
    """The venv's console script, also when the venv is not activated."""
    here = Path(sys.executable).with_name(name)
    return str(here) if here.exists() else (shutil.which(name) or name)


if __name__ == "__main__":
    sys.exit(main())
