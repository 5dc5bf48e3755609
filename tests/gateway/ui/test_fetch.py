"""gateway/ui/fetch.py: GraphiQL's npm packages installed only as their lock's integrity allows, each whole
or not at all, from a fake registry here (the real one is reached by the package build)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import stat
import tarfile
import time
from pathlib import Path

import pytest

from gateway.ui import fetch
from tests.server import free_port

FILES = {"package/dist/index.js": b"console.log('explorer');\n", "package/LICENSE": b"MIT\n"}
TARBALL_URL = "https://registry.npmjs.org/@graphiql/plugin-explorer/-/plugin-explorer-3.2.5.tgz"


def tarball(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def write_lock(path: Path, data: bytes, files: list[str] | None = None) -> Path:
    entry = {
        "name": "@graphiql/plugin-explorer",
        "version": "3.2.5",
        "tarball": TARBALL_URL,
        "integrity": integrity(data),
        "files": files or ["dist/index.js", "LICENSE"],
    }
    path.write_text(json.dumps({"packages": [entry]}), encoding="utf-8")
    return path


class Registry:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.asked: list[str] = []

    def __call__(self, url: str) -> bytes:
        self.asked.append(url)
        return self.data


def test_a_verified_package_is_installed_once(tmp_path: Path) -> None:
    data = tarball(FILES)
    lock, static, registry = write_lock(tmp_path / "lock.json", data), tmp_path / "static", Registry(data)

    first = fetch.install(static, lock, fetch=registry)
    second = fetch.install(static, lock, fetch=registry)
    forced = fetch.install(static, lock, force=True, fetch=registry)

    folder = static / "@graphiql" / "plugin-explorer@3.2.5"
    assert (folder / "dist" / "index.js").read_bytes() == FILES["package/dist/index.js"]
    assert (folder / "LICENSE").read_bytes() == b"MIT\n"
    assert [package.directory for package in first] == ["@graphiql/plugin-explorer@3.2.5"]
    assert second == [] and len(forced) == 1
    assert registry.asked == [TARBALL_URL, TARBALL_URL]
    # Readable by a server that runs as another user than the build.
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert [path.name for path in static.iterdir()] == ["@graphiql"]  # no partial folder left


def test_a_tarball_that_does_not_match_its_integrity_installs_nothing(tmp_path: Path) -> None:
    lock = write_lock(tmp_path / "lock.json", tarball(FILES))
    tampered = tarball({**FILES, "package/dist/index.js": b"steal(localStorage);\n"})

    with pytest.raises(fetch.AssetError, match="does not match its integrity"):
        fetch.install(tmp_path / "static", lock, fetch=Registry(tampered))

    assert not list((tmp_path / "static").rglob("*.js"))


def test_a_file_the_lock_names_must_be_in_the_tarball(tmp_path: Path) -> None:
    data = tarball(FILES)
    lock = write_lock(tmp_path / "lock.json", data, files=["dist/index.js", "dist/style.css"])

    with pytest.raises(fetch.AssetError, match=r"has no file dist/style\.css"):
        fetch.install(tmp_path / "static", lock, fetch=Registry(data))

    assert not (tmp_path / "static" / "@graphiql" / "plugin-explorer@3.2.5").exists()


@pytest.mark.parametrize("name", ["../outside.js", "/etc/passwd"])
def test_a_lock_names_only_plain_relative_paths(tmp_path: Path, name: str) -> None:
    data = tarball(FILES)
    lock = write_lock(tmp_path / "lock.json", data, files=[name])

    with pytest.raises(fetch.AssetError, match="not a plain relative path"):
        fetch.install(tmp_path / "static", lock, fetch=Registry(data))


def test_folders_of_packages_no_longer_locked_are_removed(tmp_path: Path) -> None:
    data = tarball(FILES)
    static = tmp_path / "static"
    for old in ("react@17.0.0", "@graphiql/plugin-explorer@3.0.0", "@graphiql-old/x@1.0.0"):
        (static / old).mkdir(parents=True)

    fetch.install(static, write_lock(tmp_path / "lock.json", data), fetch=Registry(data))

    assert sorted(path.relative_to(static).as_posix() for path in static.glob("*/*") if path.is_dir()) == [
        "@graphiql/plugin-explorer@3.2.5"
    ]
    assert sorted(path.name for path in static.iterdir()) == ["@graphiql"]


def test_a_registry_mirror_named_for_npm_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NPM_CONFIG_REGISTRY", "https://npm.mirror.example/npm/")
    package = fetch.read_lock(write_lock(tmp_path / "lock.json", b""))[0]

    assert (
        fetch.tarball_url(package)
        == "https://npm.mirror.example/npm/@graphiql/plugin-explorer/-/plugin-explorer-3.2.5.tgz"
    )


def test_the_lock_pins_every_package_by_its_registry_tarball_and_hash() -> None:
    packages = fetch.read_lock()

    assert {package.name for package in packages} == {"react", "react-dom", "graphiql", "@graphiql/plugin-explorer"}
    for package in packages:
        base_name = package.name.rsplit("/", 1)[-1]
        assert package.tarball == f"{fetch.REGISTRY}{package.name}/-/{base_name}-{package.version}.tgz"
        assert package.integrity.startswith("sha512-")
        assert len(base64.b64decode(package.integrity.removeprefix("sha512-"))) == 64


def test_a_registry_that_cannot_be_reached_is_an_error_naming_the_address_after_three_attempts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    url = f"http://127.0.0.1:{free_port()}/react/-/react-18.3.1.tgz"  # nothing listens there

    with pytest.raises(fetch.AssetError, match=rf"^cannot fetch {re.escape(url)}: .*Connection refused"):
        fetch.download(url)

    assert waits == [2, 4]  # between the three attempts
