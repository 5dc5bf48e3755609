"""`python -m bench NAME [OPTIONS]`, from the repository's root: one entry point for every benchmark;
`python -m bench` lists them, `python -m bench NAME --help` gives one's options.

A benchmark is a package of bench/ with a `main` module (`bench/orders/main.py`), or a single module for a
benchmark of one file (`bench/search.py`); either runs its `if __name__ == "__main__"` block. Its name is the
package's or module's, `_` written `-`, and a shorter one where the package says more (`http`, `whole`). The
parts benchmarks share (servers, wrk, options, process figures) are in bench/common. A new benchmark needs
nothing but its package or module."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SHARED = ("common",)
SHORT = {"http-catalogue": "http", "whole-catalogue": "whole"}
MAIN_BLOCK = 'if __name__ == "__main__"'


def benchmarks() -> dict[str, str]:
    """Every benchmark's name and the module that runs it, in name order."""
    found: dict[str, str] = {}
    for path in sorted(BENCH.iterdir()):
        if path.name.startswith("_") or path.stem in SHARED:
            continue
        if path.is_dir() and (path / "main.py").is_file():
            found[path.name.replace("_", "-")] = f"bench.{path.name}.main"
        elif path.suffix == ".py" and MAIN_BLOCK in path.read_text(encoding="utf-8"):
            found[path.stem.replace("_", "-")] = f"bench.{path.stem}"
    return dict(sorted((SHORT.get(name, name), module) for name, module in found.items()))


def main(argv: list[str]) -> int:
    found = benchmarks()
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in found:
        print("usage: python -m bench NAME [OPTIONS]  (NAME --help for its options)\n\nbenchmarks:")
        print("\n".join(f"  {name:<16} {module}" for name, module in found.items()))
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    sys.argv = [f"python -m bench {argv[0]}", *argv[1:]]
    runpy.run_module(found[argv[0]], run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
