"""minigrad-course: grade a whole class with nbgrader, in parallel, resumably.

minigrad-course init COURSE [--cpu-only] [--roster roster.csv] [--db URL] [--lang zh-CN]
minigrad-course release -C COURSE
minigrad-course collect -C COURSE                      # from nbgrader's exchange
minigrad-course collect -C COURSE ASSIGNMENT --from download.zip --roster roster.csv
minigrad-course deadline -C COURSE ASSIGNMENT "2026-12-01 23:59" [--timezone ZONE]
minigrad-course extend -C COURSE STUDENT ASSIGNMENT --days N | --hours N
minigrad-course late-policy -C COURSE [--per-day PCT] [--cap PCT] [--zero-after DAYS]
minigrad-course grade -C COURSE [-j N] [--force] [--student ID] [--scheduler tls://HOST:8786]
minigrad-course cluster-keys -C COURSE                 # TLS keys for the Dask cluster
minigrad-course export -C COURSE [--format csv|canvas|moodle] [--out FILE]
minigrad-course feedback|report -C COURSE
minigrad-course release-feedback -C COURSE [ASSIGNMENT ...]   # students fetch their own
minigrad-course hub -C COURSE --roster roster.csv --instructor NAME   # the class on JupyterHub
minigrad-course demo [DIR]                             # a sample class, end to end
minigrad-course edition DIR                            # the students' distribution
minigrad-course start [DIR] [--lang zh-CN]             # self-paced: lectures and exercises
minigrad-course check [NOTEBOOK ...]                   # what grading would give an exercise
minigrad-course saved list|restore [ASSIGNMENT] [N]    # the versions of your saved functions
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

from coursekit.classroom.intake.file_limits import DEFAULT_LIMITS, Limits
from coursekit.i18n import _


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-C", "--course", default=".", help="course directory (default: .)")
    common.add_argument(
        "--db",
        help="gradebook as an SQLAlchemy URL (default: the course's "
        "config, else sqlite:///COURSE/gradebook.db)",
    )
    common.add_argument(
        "--verbose", action="store_true", help="show nbgrader's log too (default: problems only)"
    )
    parser = argparse.ArgumentParser(
        prog="minigrad-course",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help=_("show the traceback of a failure"))
    commands = parser.add_subparsers(dest="command", required=True)

    init = commands.add_parser("init", help="create a course directory")
    init.add_argument("dir", type=Path)
    init.add_argument("--cpu-only", action="store_true", help="leave out the CUDA test cells")
    init.add_argument(
        "--solutions", type=Path, help="nbgrader source (default: the one the package carries)"
    )
    init.add_argument("--roster", type=Path, help="CSV: id, first_name, last_name, email")
    init.add_argument("--db", help="gradebook URL written to the course's config")
    init.add_argument(
        "--exchange", type=Path, help="nbgrader exchange, outside DIR (default: DIR-exchange)"
    )
    init.add_argument("--course-id", help="nbgrader's course id (default: DIR's name)")
    _language_option(init)

    release = commands.add_parser("release", parents=[common], help="release to the exchange")
    release.add_argument("assignments", nargs="*")

    collect = commands.add_parser("collect", parents=[common], help="collect submissions")
    collect.add_argument("assignments", nargs="*")
    collect.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="folder or zip downloaded from an LMS (one assignment)",
    )
    collect.add_argument("--roster", type=Path, help="roster CSV to match LMS names to")
    collect.add_argument(
        "--pattern", default="", help="regex with groups name, file_id, for the top-level names"
    )
    limits = collect.add_argument_group("limits on one student's entry (it is left out beyond)")
    for option, default, what in [
        ("--max-mb", DEFAULT_LIMITS.max_bytes / 2**20, "MiB unpacked"),
        ("--max-files", DEFAULT_LIMITS.max_files, "files"),
        ("--max-ratio", DEFAULT_LIMITS.max_ratio, "expansion of a zip member"),
        ("--max-depth", DEFAULT_LIMITS.max_depth, "zips inside zips"),
    ]:
        limits.add_argument(option, type=type(default), default=default,
                            help=f"{what} (default: {default:g})")  # fmt: skip

    grade = commands.add_parser("grade", parents=[common], help="autograde every submission")
    grade.add_argument("-j", "--jobs", type=int, help="submissions at a time (default: cores)")
    grade.add_argument("--force", action="store_true", help="regrade graded submissions too")
    grade.add_argument(
        "--student", help="regrade this student (an appeal: same seed for the same files)"
    )
    grade.add_argument("--timeout", type=_positive, default=900,
                       help="seconds per submission, all of it (default: 900)")  # fmt: skip
    grade.add_argument("--memory", type=int, default=3072, help="MB per submission (default: 3072)")
    grade.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on the workers of this Dask scheduler (tls://host:8786, started with the "
        "course's cluster-keys); -j is then theirs",
    )
    grade.add_argument(
        "--insecure",
        action="store_true",
        help="accept a plain tcp:// scheduler: whoever reaches it can join, read the hidden "
        "tests and send back grades (only on a network that nobody else reaches)",
    )
    _sealed_options(grade)

    commands.add_parser(
        "cluster-keys",
        parents=[common],
        help="TLS keys for grading on a Dask cluster (in COURSE/cluster-keys)",
    )
    feedback = commands.add_parser("feedback", parents=[common], help="HTML feedback")
    feedback.add_argument("--student")
    feedback.add_argument("-j", "--jobs", type=int, help="pages at a time (default: cores)")
    released = commands.add_parser(
        "release-feedback",
        parents=[common],
        help="feedback pages into the exchange: each student fetches their own",
    )
    released.add_argument("assignments", nargs="*")
    released.add_argument("--student")
    _hub_parser(commands, common)
    export = commands.add_parser("export", parents=[common], help="grades as CSV")
    export.add_argument("--format", default="csv", choices=("csv", "canvas", "moodle"),
                        help="csv: every detail; canvas, moodle: the LMS's gradebook import "
                        "(default: csv)")  # fmt: skip
    export.add_argument("--out", type=Path,
                        help="default: grades.csv, grades-canvas.csv or grades-moodle.csv "
                        "in COURSE")  # fmt: skip
    report = commands.add_parser("report", parents=[common], help="HTML summary with plots")
    report.add_argument("--out", type=Path, help="default: COURSE/report/")
    commands.add_parser("table", parents=[common], help="print the grade table")
    _deadline_parsers(commands, common)
    demo = commands.add_parser("demo", help="build a sample class and run everything")
    demo.add_argument("dir", type=Path, nargs="?", default=Path("build/demo-course"))
    demo.add_argument("-j", "--jobs", type=int)
    edition = commands.add_parser(
        "edition", help="the student distribution: class-edition minigrad, lectures, exercises"
    )
    edition.add_argument("dir", type=Path, help="where to write it (pip install DIR)")
    start = commands.add_parser("start", help=_("a self-paced copy of the lectures and exercises"))
    start.add_argument("dir", type=Path, nargs="?", default=Path("minigrad-course"))
    _language_option(start)
    check = commands.add_parser(
        "check", help=_("run your exercise notebook and print what grading would give it")
    )
    check.add_argument("notebooks", type=Path, nargs="*", help=_("default: exercises/*/ here"))
    check.add_argument("--seed", type=int, help=_("the values to check on (to regrade)"))
    check.add_argument("--verbose", action="store_true", help=_("every difference, in full"))
    from coursekit import saved

    saved.add_parser(commands)
    return parser


def _language_option(command) -> None:
    from coursekit.languages import DEFAULT, LANGUAGES

    command.add_argument("--lang", default=DEFAULT, metavar="LANG",
                         help=_("the notebooks' language: {languages} (default: {default})")
                         .format(languages=", ".join(LANGUAGES), default=DEFAULT))  # fmt: skip


def _hub_parser(commands, common) -> None:
    hub = commands.add_parser(
        "hub", parents=[common], help="JupyterHub for the class: an account per student (root)"
    )
    hub.add_argument("--roster", type=Path, required=True, help="CSV: the students' ids")
    hub.add_argument("--instructor", required=True, help="the instructor's account name")
    hub.add_argument("--port", type=int, default=8000, help="public port (default: 8000)")
    hub.add_argument("--ip", default="127.0.0.1", help="address (default: 127.0.0.1)")
    hub.add_argument("--auth", default="first-use", help="first-use (default: each person "
                     "sets a password at first sign-in) or shared-password")  # fmt: skip
    hub.add_argument("--state", type=Path, help="the hub's files (default: COURSE-hub)")
    hub.add_argument("--homes", type=Path, help="where new accounts' homes go (default: /home)")
    hub.add_argument("--prepare-only", action="store_true",
                     help="make accounts and configuration, start nothing")  # fmt: skip
    hub.add_argument("--allow-system-accounts", action="store_true",
                     help="let roster ids be existing system accounts (daemon, www-data): "
                     "refused by default")  # fmt: skip


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds above 0")
    return value


def _sealed_options(grade) -> None:
    """Time limits on student code: sealed grading (the default) runs it in its own sandbox;
    a course that is not sealed runs it in nbgrader's kernel (--cell-timeout)."""
    from coursekit.classroom.grading.time_limits import SealedTimes

    times = grade.add_argument_group("time limits on the student's code")
    for option, default, what in [
        ("--sealed-cell-timeout", SealedTimes.cell_s, "seconds per answer cell, sealed run"),
        ("--scenario-timeout", SealedTimes.scenario_s, "seconds per test scenario, sealed run"),
        ("--sealed-run-timeout", SealedTimes.run_s, "seconds per sealed run (its cells and "
         "scenarios together)"),
    ]:  # fmt: skip
        times.add_argument(option, type=_positive, default=default,
                           help=f"{what} (default: {default:g})")  # fmt: skip
    times.add_argument("--cell-timeout", type=int, default=120,
                       help="seconds per cell in nbgrader's kernel, for a course that is not "
                       "sealed (default: 120)")  # fmt: skip


def _deadline_parsers(commands, common) -> None:
    """deadline, extend, late-policy (coursekit/classroom/deadlines.py)."""
    deadline = commands.add_parser(
        "deadline", parents=[common], help="set an assignment's due date"
    )
    deadline.add_argument("assignment")
    deadline.add_argument("when", help='"2026-12-01 23:59", or with an offset '
                          '"2026-12-01 23:59+01:00"; "none" removes the due date')  # fmt: skip
    deadline.add_argument("--timezone", default="UTC",
                          help="zone of a time written without an offset, e.g. Europe/Paris "
                          "(default: UTC)")  # fmt: skip
    extend = commands.add_parser("extend", parents=[common], help="give a student extra time")
    extend.add_argument("student")
    extend.add_argument("assignment")
    length = extend.add_mutually_exclusive_group(required=True)
    length.add_argument("--days", type=float, help="days after the due date (0 removes it)")
    length.add_argument("--hours", type=float, help="hours after the due date (0 removes it)")
    policy = commands.add_parser("late-policy", parents=[common],
                                 help="penalty for late work (default: none)")  # fmt: skip
    policy.add_argument("--per-day", type=float, default=0.0,
                        help="percent of the points off per day late, a part day counting "
                        "whole (default: 0)")  # fmt: skip
    policy.add_argument("--cap", type=float, help="the most taken off, percent of the points")
    policy.add_argument("--zero-after", type=float, help="days late after which the score is 0")


def main(argv=None) -> int:
    from coursekit.i18n import speaking, terminal_language

    with speaking(terminal_language()):  # --help, and argparse's refusals, as the terminal reads
        args = _parser().parse_args(argv)
    try:
        code = _run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:  # `table | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell shows a command that SIGPIPE ended
    except KeyboardInterrupt:
        print("\n" + _("interrupted: what was finished is kept; run the same command again "
                        "to go on"), file=sys.stderr)  # fmt: skip
        return 130
    except Exception as exc:  # noqa: BLE001  (an instructor reads a message, not a traceback)
        if args.debug:
            raise
        print(f"minigrad-course {args.command}: {_explain(exc)}", file=sys.stderr)
        print(_("(run again with --debug for the details)"), file=sys.stderr)
        return 1


def _explain(exc: Exception) -> str:
    """One or two lines: what happened and what to do."""
    from coursekit.classroom.printable import printable

    text = printable(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    lowered = str(exc).lower()
    if "disk is full" in lowered or getattr(exc, "errno", None) == 28:
        return ("the disk is full. Nothing graded so far is lost: free some space and run the "
                "same command again, it goes on where it stopped.")  # fmt: skip
    if type(exc).__name__ == "OperationalError":  # SQLAlchemy: the gradebook's database
        return (
            f"the gradebook's database cannot be used ({text}). Check --db or the URL in "
            "the course's gradebook_url file, and that the database server is running."
        )
    if isinstance(exc, ModuleNotFoundError):  # the plain wheel, without the course extras
        package = printable((exc.name or text).split(".")[0])
        return (
            f"a module it needs is not installed ({package}): the instructor's commands need "
            "the course extras, `pip install 'minigrad-course[course]'`."
        )
    if isinstance(exc, FileNotFoundError):
        return f"{text}. Check the path."
    return text


def _run(args) -> int:
    if args.command == "start":
        return _start(args.dir, args.lang)
    if args.command == "check":
        from coursekit.exercises.selfcheck import main as selfcheck

        options = ["--seed", str(args.seed)] if args.seed is not None else []
        options += ["--verbose"] if args.verbose else []
        return selfcheck([*options, *(str(p) for p in args.notebooks)])
    if args.command == "saved":
        from coursekit import saved

        return saved.run(args)
    if importlib.util.find_spec("coursekit.classroom.course") is None:
        raise SystemExit(
            f"`minigrad-course {args.command}` is an instructor's command, and this is the "
            "student distribution (minigrad-course-student: start and check). An instructor "
            "installs the instructor's package: `pip install minigrad-course[course]`."
        )
    from coursekit.classroom.course import Course

    if args.command == "init":
        from coursekit.classroom.setup.init_course import init_course

        course = init_course(
            args.dir,
            args.solutions,
            args.cpu_only,
            args.db,
            args.roster,
            args.exchange,
            args.course_id,
            args.lang,
        )
        print(f"course ready in {course.root}: {', '.join(course.assignments())}")
        return 0
    if args.command == "demo":
        from coursekit.classroom.setup.demo import run_demo

        return run_demo(args.dir, args.jobs)
    if args.command == "edition":
        from coursekit.edition import write_student_distribution

        where = write_student_distribution(args.dir)
        print(
            f"the student distribution (minigrad-course-student: the class edition of minigrad, "
            f"the lectures, the exercises and `check`) is in {where}: students install it with "
            f"`pip install {where}` (or a wheel of it: `pip wheel {where}`)"
        )
        return 0
    course = Course.at(args.course, args.db)
    if not course.path("nbgrader_config.py").is_file():
        raise SystemExit(
            f"{course.root} is not a course folder (it has no nbgrader_config.py): name "
            "the course with `-C COURSE`, or make one with `minigrad-course init COURSE`"
        )
    unknown = [a for a in getattr(args, "assignments", []) if a not in course.assignments()]
    if unknown:
        raise SystemExit(
            f"no assignment named {', '.join(map(repr, unknown))} in {course.root}: its "
            f"assignments are {', '.join(course.assignments())}"
        )
    return COMMANDS[args.command](course, args)


def _start(dest: Path, language: str) -> int:
    """`start`: the course laid out in `language`, and what to do next said in it."""
    from coursekit.i18n import speaking
    from coursekit.languages import checked

    with speaking(checked(language)):
        return _lay_out(dest, language)


def _lay_out(dest: Path, language: str) -> int:
    from coursekit.content import copy_content

    if dest.exists() and any(dest.iterdir()):
        raise SystemExit(
            _("{folder} is not empty: name a new folder (minigrad-course start DIR)").format(
                folder=dest
            )
        )
    folders = copy_content(dest, language)
    if importlib.util.find_spec("jupyterlab") is not None:
        how = _("Open it with `jupyter lab {folder}`").format(folder=dest)
    else:  # say which extra brings it, in this distribution
        from minigrad import seams

        package = "minigrad-course-student" if seams.EDITION == "class" else "minigrad-course"
        extra = "lab" if seams.EDITION == "class" else "course"
        how = _(
            "JupyterLab is not installed here ({package}'s [{extra}] extra brings it); open "
            "{folder} in a Jupyter"
        ).format(package=package, extra=extra, folder=dest)
    said = _(
        "the course is in {folder}: lectures in {lectures}, exercises in {exercises}.\n{how} "
        "and start with lectures/00_start_here.ipynb; check an exercise with "
        "`minigrad-course check {exercises}/leaf_nodes/leaf_nodes.ipynb`."
    )
    print(
        said.format(
            folder=dest, lectures=folders["lectures"], exercises=folders["exercises"], how=how
        )
    )
    return 0


def _release(course, args) -> int:
    from coursekit.classroom.course import check_result
    from coursekit.classroom.setup.init_course import protect_inbound

    api = course.api()
    for assignment in args.assignments or course.assignments():
        result = api.release_assignment(assignment)
        if not result.get("success") and "already exists" in str(result.get("log", "")):
            print(f"{assignment} is already released: students can fetch it; nothing to do")
            continue
        check_result(result, f"release_assignment {assignment}")
        print(f"released {assignment}")
    protect_inbound(course)
    return 0


def _collect(course, args) -> int:
    from coursekit.classroom.intake import collect
    from coursekit.classroom.intake.roster import import_roster, read_roster
    from coursekit.classroom.printable import printable

    limits = Limits(int(args.max_mb * 2**20), args.max_files, args.max_ratio, args.max_depth)
    if args.roster:
        with course.gradebook() as gb:
            import_roster(gb, read_roster(args.roster))
    if args.source is None:
        assignments = args.assignments or course.assignments()
        found = collect.collect_from_exchange(course, assignments, limits, args.verbose)
        taken = sum(len(c.taken) for c in found.values())
        print(f"collected from the exchange: {taken} new or updated submissions "
              f"({len(course.submitted())} in submitted/ in all)")  # fmt: skip
        for assignment, collected in found.items():
            for problem in collected.left_out:
                print(f"  left out ({assignment}): {printable(problem)}")
            for note in collected.notes:
                print(f"  note ({assignment}): {printable(note)}")
        return 0
    if len(args.assignments) != 1 or args.roster is None:
        raise SystemExit("collect --from needs exactly one ASSIGNMENT and --roster")
    assignment = args.assignments[0]
    collected = collect.collect_from_lms(
        course, assignment, args.source, args.roster, args.pattern, limits, args.verbose
    )
    in_all = len([s for s in course.submitted() if s[1] == assignment])
    print(f"collected {assignment} from {printable(args.source.name)}: {len(collected.taken)} "
          f"submissions ({in_all} of {assignment} in submitted/ in all)")  # fmt: skip
    for problem in collected.left_out:
        print(f"  left out: {printable(problem)}")
    if collected.taken:
        return 0
    if collected.left_out:
        raise SystemExit(
            f"nothing collected for {assignment}: every entry of the download was left out "
            "(each listed above); fix the roster (--roster) or the names (--pattern), or give "
            f"the download of {assignment}, and run collect again"
        )
    raise SystemExit(
        f"nothing collected for {assignment}: {printable(args.source.name)} holds no notebook "
        f"(.ipynb); give the LMS's download of the submissions to {assignment}"
    )


def _grade(course, args) -> int:
    if not args.scheduler:  # graded here: the grading processes' imports start meanwhile
        from coursekit.classroom.grading.supervisor import start_fork_server

        start_fork_server()
    from coursekit.classroom.grading.grade import grade_class, hand_back, sealing_notice
    from coursekit.classroom.grading.supervisor import Limits
    from coursekit.classroom.grading.time_limits import SealedTimes
    from coursekit.classroom.results.table import grade_summary

    sealed = SealedTimes(args.sealed_cell_timeout, args.scenario_timeout, args.sealed_run_timeout)
    started = time.time()
    try:
        results = grade_class(
            course,
            args.jobs,
            args.force,
            args.student,
            args.cell_timeout,
            Limits(args.timeout, args.memory),
            sealed=sealed,
            scheduler=args.scheduler,
            insecure=args.insecure,
        )
    finally:
        hand_back(course)  # root grading an instructor's course (sudo, on a hub)
    if args.verbose:
        _show_logs(course.work / "logs", started)
    print(grade_summary(results))
    notice = sealing_notice(course) if results else ""
    if notice:
        print(notice)
    return 0


def _cluster_keys(course, args) -> int:
    from coursekit.classroom.grading.cluster_keys import keys_folder, make_keys

    folder = make_keys(keys_folder(course))
    print(
        f"the cluster's keys are in {folder} (readable by you only). Copy ca.pem and "
        "scheduler.pem to the scheduler's machine, ca.pem and worker.pem to each worker's "
        "(readable by the account the worker runs as, nobody else), then:\n"
        "  dask scheduler --protocol tls --port 8786 --tls-ca-file ca.pem "
        "--tls-cert scheduler.pem\n"
        "  dask worker tls://HEAD:8786 --tls-ca-file ca.pem --tls-cert worker.pem\n"
        f"  minigrad-course grade -C {course.root} --scheduler tls://HEAD:8786"
    )
    return 0


def _show_logs(folder: Path, since: float) -> None:
    """nbgrader's log of each submission graded since `since` (what its worker and kernel
    printed, the student's output included: shown printable)."""
    from coursekit.classroom.printable import printable

    for log in sorted(folder.glob("*.log")):
        if log.stat().st_mtime >= since:
            print(f"--- {log}", file=sys.stderr)
            for line in log.read_text(errors="replace").splitlines():
                print(printable(line), file=sys.stderr)


def _feedback(course, args) -> int:
    from coursekit.classroom.results.feedback import make_feedback

    pages = make_feedback(course, args.student, args.jobs, args.verbose)
    print(f"{len(pages)} feedback pages in {course.path('feedback')}")
    return 0


def _release_feedback(course, args) -> int:
    from coursekit.classroom.printable import printable
    from coursekit.classroom.results.release_feedback import release_feedback

    released, problems = release_feedback(course, args.assignments, args.student)
    print(f"released {len(released)} feedback pages: students fetch them from the "
          "Assignment List (Fetch Feedback) or with `nbgrader fetch_feedback`")  # fmt: skip
    for problem in problems:
        print(f"  not released: {printable(problem)}")
    return 0


def _hub(course, args) -> int:
    from coursekit.classroom.hub.launch import prepare_hub, start_hub
    from coursekit.classroom.intake.roster import import_roster, read_roster

    rows = read_roster(args.roster)
    with course.gradebook() as gb:
        import_roster(gb, rows)
    state = (args.state or course.root.with_name(f"{course.root.name}-hub")).resolve()
    hub = prepare_hub(
        course, rows, args.instructor, state, args.port, args.ip, args.auth, args.homes,
        args.allow_system_accounts,
    )  # fmt: skip
    if hub.created:
        print(f"accounts created: {', '.join(hub.created)}")
    if hub.password_file:
        print(f"{args.instructor}'s password is in {hub.password_file} (root's alone): give it "
              "to them; it is theirs from the first sign-in, never the first comer's")  # fmt: skip
    if args.prepare_only:
        print(f"ready: jupyterhub -f {hub.config}")
        return 0
    start_hub(hub, state)
    return 0


def _export(course, args) -> int:
    from coursekit.classroom.results.export import DEFAULT_NAMES, export_grades

    path = args.out or course.path(DEFAULT_NAMES[args.format])
    for warning in export_grades(course, path, args.format):
        print(f"warning: {warning}", file=sys.stderr)
    print(f"written {path}")
    return 0


def _report(course, args) -> int:
    from coursekit.classroom.results.report import write_report

    print(f"written {write_report(course, args.out or course.path('report'))}")
    return 0


def _deadline(course, args) -> int:
    from coursekit.classroom.deadlines import set_deadline

    print(set_deadline(course, args.assignment, args.when, args.timezone))
    return 0


def _extend(course, args) -> int:
    from coursekit.classroom.deadlines import extend

    hours = args.hours if args.hours is not None else args.days * 24
    print(extend(course, args.student, args.assignment, hours))
    return 0


def _late_policy(course, args) -> int:
    from coursekit.classroom.deadlines import Policy, set_policy

    print(set_policy(course, Policy(args.per_day, args.cap, args.zero_after)))
    return 0


def _table(course, args) -> int:
    from coursekit.classroom.results.table import grade_table

    print(grade_table(course))
    return 0


COMMANDS = {
    "release": _release,
    "collect": _collect,
    "grade": _grade,
    "cluster-keys": _cluster_keys,
    "feedback": _feedback,
    "release-feedback": _release_feedback,
    "hub": _hub,
    "export": _export,
    "report": _report,
    "table": _table,
    "deadline": _deadline,
    "extend": _extend,
    "late-policy": _late_policy,
}


if __name__ == "__main__":
    sys.exit(main())
