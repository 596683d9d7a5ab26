"""Rosters the tests share: roster_text writes one, CLASS_OF_EIGHT is the class that the
deadline and intake tests enrol (each student's names, as an LMS spells them in its files)."""

from __future__ import annotations


def roster_text(people) -> str:
    """A roster CSV for (id, first name, last name) triples, e-mail made from the id."""
    rows = "".join(f"{i},{first},{last},{i}@example.edu\n" for i, first, last in people)
    return "id,first_name,last_name,email\n" + rows


CLASS_OF_EIGHT = (
    ("ada", "Ada", "Lovelace"),
    ("ben", "Ben", "Bitdiddle"),
    ("cy", "Cy", "Fect"),
    ("dee", "Dee", "Cohen"),
    ("kim", "Kim", "Park"),
    ("lu", "Lu", "Xun"),
    ("mo", "Mo", "Ray"),
    ("ned", "Ned", "Stark"),
)
