"""mkdocs hooks: the reference pages generated from the code (gateway.reference.pages) join the site."""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

from gateway.reference.pages import pages


def on_files(files: Files, config: Any) -> Files:
    for path, content in pages().items():
        files.append(File.generated(config, path, content=content))
    return files
