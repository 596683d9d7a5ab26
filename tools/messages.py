"""`make messages`: the course's message catalogue (coursekit/i18n.py) brought up to date.

Collects every message the code marks (_, N_, ngettext in coursekit/, autograder/ and
minigrad/), the rules' statements (autograder/rules.py, translated where feedback quotes them)
and the planted bugs' explanations (autograder/diagnoses.json.gz, where feedback names the
likely mistake); merges them into each language's .po (new ones empty, gone ones dropped), then
compiles each .po into the .mo the package ships. tests/test_messages.py holds the .mo to the
.po and every collected message to a translation.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coursekit.i18n import DOMAIN, LOCALE_DIR, locale_name  # noqa: E402
from coursekit.languages import TRANSLATIONS  # noqa: E402

KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
SOURCES = ("coursekit", "autograder", "minigrad")  # minigrad: viz.py, its pictures' words
# where a group of messages comes from: what `python -m tools.messages --share` counts apart
CODE, RULES, DIAGNOSES = "code", "rules", "diagnoses"


def collected() -> dict[str, list[tuple[str | tuple[str, str], str]]]:
    """Per group: (message id, or (singular, plural); where it is used)."""
    from autograder import diagnoses
    from autograder.rules import RULES as STATEMENTS

    code = []
    for folder in SOURCES:
        for name, line, message, _comments, _context in extract_from_dir(
            ROOT / folder,
            method_map=[("**.py", "python"), ("**.html", "jinja2")],
            options_map={"**.html": {"extensions": "jinja2.ext.i18n"}},
            keywords=KEYWORDS,
            comment_tags=(),
            strip_comment_tags=True,
        ):
            code.append((message, f"{folder}/{name}:{line}"))
    rules = [(text, f"autograder/rules.py:{rule}") for rule, text in STATEMENTS.items()]
    bugs = diagnoses.load()["bugs"]
    explained = [(sig["text"], f"autograder/diagnoses.json.gz:{bug}") for bug, sig in bugs.items()]
    return {CODE: code, RULES: rules, DIAGNOSES: explained}


def template() -> Catalog:
    catalog = Catalog(domain=DOMAIN, project="minigrad-course", fuzzy=False)
    for group in collected().values():
        for message, where in group:
            path, _, what = where.rpartition(":")
            comments = [] if what.isdigit() else [what]  # a rule's id, a bug's name
            catalog.add(message, locations=[(path, None)], auto_comments=comments)
    return catalog


def po_path(language: str) -> Path:
    return LOCALE_DIR / locale_name(language) / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(language: str) -> Catalog:
    with po_path(language).open("rb") as handle:
        return read_po(handle, locale=locale_name(language), domain=DOMAIN)


def compiled(catalog: Catalog) -> bytes:
    """The .mo of `catalog` (fuzzy translations left out, as gettext's msgfmt does)."""
    import io

    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def update() -> None:
    fresh = template()
    for language in TRANSLATIONS:
        path = po_path(language)
        if path.is_file():
            catalog = read(language)
            created = catalog.creation_date  # kept: a run that changes nothing changes no byte
            catalog.update(fresh, no_fuzzy_matching=True)
            catalog.creation_date = created
            catalog.obsolete.clear()  # a message the code no longer uses
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=locale_name(language), domain=DOMAIN, fuzzy=False)
            catalog.update(fresh, no_fuzzy_matching=True)
        with path.open("wb") as handle:
            write_po(handle, catalog, width=100, include_lineno=False)
        path.with_suffix(".mo").write_bytes(compiled(read(language)))
        print(f"{path.relative_to(ROOT)}: {share_line(language)}")


def untranslated(language: str, groups=(CODE, RULES, DIAGNOSES)) -> list[str]:
    """The messages of `groups` the language's .po has no translation for."""
    catalog = read(language)
    missing = []
    for group, found in collected().items():
        if group not in groups:
            continue
        for message, where in found:
            entry = catalog.get(message if isinstance(message, str) else message[0])
            strings = entry.string if entry else ""
            strings = strings if isinstance(strings, tuple) else (strings,)
            if not entry or entry.fuzzy or not all(strings):
                missing.append(f"{where}: {message!r}")
    return missing


def share_line(language: str) -> str:
    """How much of each group is translated, in messages."""
    parts = []
    for group, found in collected().items():
        total = len({str(m) for m, _ in found})
        missing = len({line.split(": ", 1)[1] for line in untranslated(language, (group,))})
        parts.append(f"{group} {total - missing}/{total}")
    return ", ".join(parts)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--share"]:
        for language in TRANSLATIONS:
            print(f"{language}: {share_line(language)}")
        return 0
    update()
    return 0


if __name__ == "__main__":
    sys.exit(main())
