"""TLS for ``wss://`` and ``https://``: the user's certificate, or a locally generated CA and server
certificate (trustme, on the ``cryptography`` package).

The generated CA is kept in ``tls_dir`` (default ``$XDG_CACHE_HOME/mockengine/tls`` or
``~/.cache/mockengine/tls``, mode 0700) and reused on later starts, so a client trusts it once; the server
certificate is issued afresh at every start for ``localhost``, ``127.0.0.1``, ``::1`` and the host served.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from mockengine.server.settings_checks import Label, option
from mockengine.settings import Settings

CA_CERT_FILE = "ca.pem"
CA_KEY_FILE = "ca.key"


@dataclass(frozen=True)
class TlsSetup:
    context: ssl.SSLContext
    ca_file: Path | None  # the CA clients must trust (None: the user's own certificate is served)


def default_tls_dir() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "mockengine" / "tls"


def server_ssl_context(settings: Settings, label: Label = option) -> TlsSetup:
    """The server's SSL context. Raises ValueError, one line naming the setting by ``label(field)``
    (``serve``'s: the environment variable when the value came from there), for a half-given or
    unreadable certificate pair or a --tls-dir where the CA cannot be kept."""
    if settings.tls_cert or settings.tls_key:
        if not (settings.tls_cert and settings.tls_key):
            raise ValueError(f"{label('tls_cert')} and {label('tls_key')} go together")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            context.load_cert_chain(settings.tls_cert, settings.tls_key)
        except (OSError, ssl.SSLError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise ValueError(
                f"cannot load {label('tls_cert')} {settings.tls_cert} with {label('tls_key')} "
                f"{settings.tls_key}: {reason}"
            ) from exc
        return TlsSetup(context, None)
    directory = Path(settings.tls_dir) if settings.tls_dir else default_tls_dir()
    try:
        return generated_tls(directory, settings.host)
    except OSError as exc:  # it said only "[Errno 2] No such file or directory: '/x'"
        raise ValueError(
            f"{label('tls_dir')} {directory}: cannot keep the generated CA there ({exc.strerror or exc})"
        ) from exc


def generated_tls(directory: Path, host: str) -> TlsSetup:
    """A local CA (made once in ``directory``, then reused) and a fresh server certificate from it."""
    import trustme

    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    ca_cert, ca_key = directory / CA_CERT_FILE, directory / CA_KEY_FILE
    if ca_cert.exists() and ca_key.exists():
        ca = trustme.CA.from_pem(ca_cert.read_bytes(), ca_key.read_bytes())
    else:
        ca = trustme.CA(organization_name="mockengine local CA")
        ca_key.write_bytes(ca.private_key_pem.bytes())
        os.chmod(ca_key, 0o600)
        ca.cert_pem.write_to_path(str(ca_cert))
    names = ["localhost", "127.0.0.1", "::1"]
    if host not in names and host not in ("0.0.0.0", "::", ""):
        names.append(host)
    server_cert = ca.issue_cert(*names)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_cert.configure_cert(context)
    return TlsSetup(context, ca_cert)
