"""The keys of a grading cluster: who may join it, and whose results count.

`minigrad-course cluster-keys -C COURSE` writes COURSE/cluster-keys/ (readable by its owner
only): a certificate authority of the cluster's own (its private key is thrown away once it
has signed), and a certificate with its key for each role, as Dask's TLS takes them
(distributed.security.Security: mutual TLS, every peer must show a certificate that
authority signed):

    ca.pem          the authority's certificate: every machine of the cluster
    scheduler.pem   `dask scheduler --tls-ca-file ca.pem --tls-cert scheduler.pem`
    worker.pem      `dask worker tls://HEAD:8786 --tls-ca-file ca.pem --tls-cert worker.pem`
    instructor.pem  `grade --scheduler tls://HEAD:8786` (stays in the course)

The workers' private key is also the secret a result is signed with (cluster_reply.py): a
machine that joined without it (an --insecure cluster) cannot sign, and a signed result
names its run and its submission, so it counts for nothing else.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

FOLDER = "cluster-keys"  # in the course directory
ROLES = ("scheduler", "worker", "instructor")
VALID_DAYS = 400  # a course's term or two; make new keys for the next one
_PRIVATE_KEY = re.compile(rb"-----BEGIN ([A-Z ]*)PRIVATE KEY-----(.+?)-----END ", re.S)


class KeysError(SystemExit):
    """The cluster's keys are missing or unreadable: what to do, in a sentence."""


def keys_folder(course) -> Path:
    return course.path(FOLDER)


def make_keys(folder: Path) -> Path:
    """Write a fresh authority's certificate and each role's certificate and key in `folder`
    (created, owner-only); refuses to replace keys that exist (workers may hold them)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    if folder.exists() and any(folder.iterdir()):
        raise KeysError(
            f"{folder} already holds keys: the workers that have them keep working. To "
            "replace them (a worker's key was lost, a new term), remove that folder first, "
            "then give every machine the new files"
        )
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    now = datetime.datetime.now(datetime.timezone.utc)
    until = now + datetime.timedelta(days=VALID_DAYS)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    authority_key = ec.generate_private_key(ec.SECP256R1())
    # a name of its own: TLS finds a certificate's authority by name, among all it trusts
    authority_name = name(f"minigrad-course grading cluster {secrets.token_hex(6)}")
    authority = (
        x509.CertificateBuilder()
        .subject_name(authority_name)
        .issuer_name(authority_name)
        .public_key(authority_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(until)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .sign(authority_key, hashes.SHA256())
    )
    _write(folder / "ca.pem", authority.public_bytes(serialization.Encoding.PEM))
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name(f"minigrad-course {role}"))
            .issuer_name(authority.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(  # each role both listens and connects
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
                ),
                critical=False,
            )
            .sign(authority_key, hashes.SHA256())
        )
        pem = certificate.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _write(folder / f"{role}.pem", pem)
    return folder


def _write(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)


def security(folder: Path):
    """Dask's Security for `grade` (the client role): TLS with the course's keys, required."""
    from distributed.security import Security

    for name in ("ca.pem", "instructor.pem", "worker.pem"):
        if not (folder / name).is_file():
            raise KeysError(
                f"no cluster keys in {folder} ({name} is missing): make them with "
                "`minigrad-course cluster-keys -C COURSE` and start the scheduler and workers "
                "with them (README, Grading on a cluster)"
            )
    return Security(
        require_encryption=True,
        tls_ca_file=str(folder / "ca.pem"),
        tls_client_cert=str(folder / "instructor.pem"),
    )


def results_secret(pem: bytes) -> bytes:
    """The secret results are signed with, from the workers' certificate file (its key)."""
    found = _PRIVATE_KEY.search(pem)
    if not found:
        raise KeysError("the workers' certificate file holds no private key")
    material = b"".join(found.group(2).split())
    return hmac.new(material, b"minigrad-course results v1", hashlib.sha256).digest()


def run_secret(secret: bytes, run: str) -> bytes:
    """The secret of one `grade` run: its results count for that run only."""
    return hmac.new(secret, b"run " + run.encode(), hashlib.sha256).digest()


def worker_secret() -> bytes | None:
    """On a Dask worker: the results secret from the key it joined the cluster with, None
    when it joined without TLS."""
    from distributed import get_worker

    security = get_worker().security
    source = security.tls_worker_key or security.tls_worker_cert
    if not source:
        return None
    pem = source.encode() if "\n" in source else Path(source).read_bytes()  # in memory, or a file
    try:
        return results_secret(pem)
    except KeysError:
        return None
