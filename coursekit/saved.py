"""`minigrad-course saved list|restore`: the versions of a student's saved functions.

The class edition saves the functions a student binds (minigrad/seams: one file per
assignment in ~/.minigrad/my_seams, $MINIGRAD_MY_SEAMS), keeping every file it replaces.
`list` shows them, `restore ASSIGNMENT VERSION` makes an earlier one the saved one again
(the one it replaces is kept too, so a restore can be undone the same way).
"""

from __future__ import annotations

from autograder.i18n import padded
from coursekit.i18n import _
from minigrad import seams


def add_parser(commands) -> None:
    saved = commands.add_parser(
        "saved", help=_("list or restore the versions of your saved functions (class edition)")
    )
    actions = saved.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help=_("the versions kept, per assignment"))
    listing.add_argument("assignment", nargs="?", choices=seams.ASSIGNMENTS)
    restore = actions.add_parser("restore", help=_("make an earlier version the saved one"))
    restore.add_argument("assignment", choices=seams.ASSIGNMENTS)
    restore.add_argument("version", type=int, help=_("its number, as `saved list` shows it"))


def run(args) -> int:
    if args.action == "restore":
        path = seams.restore(args.assignment, args.version)
        said = _(
            "version {version} of {assignment} is your saved one again ({path}); the one it "
            "replaced is kept (minigrad-course saved list). Restart a notebook's kernel for its "
            "engine to use it."
        )
        print(said.format(version=args.version, assignment=args.assignment, path=path))
        return 0
    assignments = [args.assignment] if args.assignment else list(seams.ASSIGNMENTS)
    print(_("saved functions in {folder}").format(folder=seams.my_seams()))
    shown = 0
    for assignment in assignments:
        versions = seams.saved_versions(assignment)
        if not versions:
            continue
        print(f"{assignment}:")
        for v in versions:
            number = padded(_("current"), 7) if v["version"] == 0 else f"{v['version']:>7}"
            names = ", ".join(v["functions"]) or _("(no function)")
            print(f"  {number}  {v['saved']}  {names}")
        shown += 1
    if not shown:
        print("  " + _("none yet: binding your functions in an exercise notebook saves them"))
    return 0
