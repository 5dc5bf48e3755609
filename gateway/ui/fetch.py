"""GraphiQL's browser files, fetched from the npm registry by name and version and checked against the
integrity hash of `assets.lock.json` before a byte of them is written. No third-party file lives in the
repository: the package build (setup.py) runs this, and so can a developer:

    python -m gateway.ui.fetch            # fetch what is missing into gateway/ui/static/
    python -m gateway.ui.fetch --force    # fetch everything again

Standard library only: the build runs it before any dependency is installed. A registry mirror named by
npm's own `npm_config_registry` variable is used instead of registry.npmjs.org; the integrity check makes
any source as good as the registry itself.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
LOCK = HERE / "assets.lock.json"
STATIC = HERE / "static"
REGISTRY = "https://registry.npmjs.org/"
TIMEOUT = 60.0
ATTEMPTS = 3


class AssetError(Exception):
    """A package that could not be fetched, failed its integrity check, or lacks a file the lock names."""


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    tarball: str
    integrity: str
    files: tuple[str, ...]

    @property
    def directory(self) -> str:
        """Where its files go under static/ and under the URL they are served at: `graphiql@3.8.3`."""
        return f"{self.name}@{self.version}"


Download = Callable[[str], bytes]


def read_lock(path: Path = LOCK) -> list[Package]:
    packages = [
        Package(entry["name"], entry["version"], entry["tarball"], entry["integrity"], tuple(entry["files"]))
        for entry in json.loads(path.read_text(encoding="utf-8"))["packages"]
    ]
    for package in packages:
        # The lock's paths become paths on disk: only plain relative ones.
        for name in (package.directory, *package.files):
            if PurePosixPath(name).is_absolute() or ".." in PurePosixPath(name).parts:
                raise AssetError(f"{path}: {name!r} is not a plain relative path")
    return packages


def verify(package: Package, data: bytes) -> None:
    """Subresource-integrity check (`sha512-<base64>`, as npm's lock files and the registry write it)."""
    algorithm, _, expected = package.integrity.partition("-")
    if algorithm != "sha512":
        raise AssetError(f"{package.directory}: integrity {package.integrity!r} is not a sha512 hash")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
    if not hmac.compare_digest(actual, expected):
        raise AssetError(
            f"{package.directory}: the tarball does not match its integrity (expected sha512-{expected}, "
            f"got sha512-{actual}); nothing was installed"
        )


def extract(package: Package, data: bytes, target: Path) -> None:
    """Only the files the lock names, each a regular file of the tarball's `package/` folder."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for name in package.files:
            try:
                member = tar.getmember(f"package/{name}")
            except KeyError:
                raise AssetError(f"{package.directory}: the tarball has no file {name}") from None
            source = tar.extractfile(member) if member.isfile() else None
            if source is None:
                raise AssetError(f"{package.directory}: {name} is not a regular file")
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(source.read())


def tarball_url(package: Package) -> str:
    # npm takes its settings' variables in either case.
    mirror = {name.lower(): value for name, value in os.environ.items()}.get("npm_config_registry")
    if mirror and package.tarball.startswith(REGISTRY):
        return mirror.rstrip("/") + "/" + package.tarball.removeprefix(REGISTRY)
    return package.tarball


def download(url: str) -> bytes:
    if not url.startswith(("https://", "http://")):
        raise AssetError(f"{url}: not an http(s) URL")
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT) as response:  # noqa: S310 (scheme checked above)
                body: bytes = response.read()
                return body
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            if attempt == ATTEMPTS:
                raise AssetError(f"cannot fetch {url}: {getattr(error, 'reason', error)}") from None
            time.sleep(2 * attempt)
    raise AssertionError("unreachable")


def installed(package: Package, static: Path = STATIC) -> bool:
    return all((static / package.directory / name).is_file() for name in package.files)


def install(
    static: Path = STATIC, lock: Path = LOCK, *, force: bool = False, fetch: Download = download
) -> list[Package]:
    """Puts every package of the lock under `static`; returns those it had to fetch. Each lands whole or
    not at all (extracted beside its place, then renamed), and folders of packages no longer locked go."""
    packages = read_lock(lock)
    static.mkdir(parents=True, exist_ok=True)
    fetched = []
    for package in packages:
        if installed(package, static) and not force:
            continue
        data = fetch(tarball_url(package))
        verify(package, data)
        partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=static))
        try:
            extract(package, data, partial)
            partial.chmod(0o755)  # mkdtemp's 0700 would hide the files from a server run by another user
            final = static / package.directory
            final.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(final, ignore_errors=True)
            partial.rename(final)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        fetched.append(package)
    _remove_unlocked(static, {package.directory for package in packages})
    return fetched


def _remove_unlocked(static: Path, locked: set[str]) -> None:
    for entry in static.iterdir():
        # A scoped package (`@graphiql/plugin-explorer@3.2.5`) is one folder deeper.
        children = list(entry.iterdir()) if entry.name.startswith("@") and entry.is_dir() else [entry]
        for child in children:
            if child.relative_to(static).as_posix() not in locked:
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        if entry.is_dir() and not any(entry.iterdir()):
            entry.rmdir()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gateway.ui.fetch", description="Fetch GraphiQL's browser files and verify them."
    )
    parser.add_argument("--force", action="store_true", help="fetch every package again")
    parser.add_argument("--into", type=Path, default=STATIC, help="the folder to fill (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        fetched = install(args.into, force=args.force)
    except AssetError as error:
        print(f"gateway.ui.fetch: {error}", file=sys.stderr)
        return 1
    for package in fetched:
        print(f"{package.directory}: fetched, integrity verified")
    if not fetched:
        print(f"every package of {LOCK.name} is in place in {args.into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
