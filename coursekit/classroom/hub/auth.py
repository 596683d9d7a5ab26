"""First-use sign-in for the students, a password set in advance for the instructors.

jupyterhub-firstuseauthenticator lets whoever signs in first as a name set its password: for
a student's account that is the known weakness of first use (README), for the instructor's it
would hand the course and the admin page to whoever knows the name. So `minigrad-course hub`
sets the instructor's password itself (a random one, in a file only root reads) and pins its
bcrypt hash in the hub's configuration: that name never goes through first use, whatever the
password database holds, and its password is not changed from the sign-in page.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import bcrypt
from firstuseauthenticator import FirstUseAuthenticator
from traitlets import Dict

PASSWORD_FILE = "instructor-password"  # in the hub's state folder (root's, 0700)


class CourseFirstUseAuthenticator(FirstUseAuthenticator):
    pinned = Dict(
        help="name -> bcrypt hash of a password set by `minigrad-course hub` (the instructors')"
    ).tag(config=True)

    async def authenticate(self, handler, data):
        name = self.normalize_username(data["username"])
        if name in self.pinned:
            given = data["password"].encode("utf8")
            return name if bcrypt.checkpw(given, self.pinned[name].encode("ascii")) else None
        return await super().authenticate(handler, data)

    def reset_password(self, username, new_password):
        if username in self.pinned:
            return (
                "The instructor's password is set by `minigrad-course hub`: delete "
                f"{PASSWORD_FILE} in the hub's folder and run it again for a new one."
            )
        return super().reset_password(username, new_password)


def instructor_password(state: Path) -> tuple[Path, str]:
    """The instructor's password file in `state` (made, 0600, with a random password the
    first time) and the bcrypt hash of the password in it."""
    path = state / PASSWORD_FILE
    if not path.is_file():
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(24) + "\n")
    path.chmod(0o600)
    password = path.read_text().strip()
    return path, bcrypt.hashpw(password.encode("utf8"), bcrypt.gensalt()).decode("ascii")
