"""Every docstring example (``>>>``) in the package is one the suite runs.

pytest collects them with ``--doctest-modules`` over ``shortclust/`` (see ``testpaths`` and
``addopts`` in pyproject.toml). doctest only finds examples in the docstrings of a module and
of the functions and classes defined in it; this test catches a ``>>>`` written anywhere
else (a comment, a string that is not a docstring, a function nested in another), which
would silently never run.
"""

import doctest
import importlib
from pathlib import Path

import pytest

import shortclust

PACKAGE = Path(shortclust.__file__).parent


def module_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__main__.py")


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def written_examples(path):
    return sum(line.lstrip().startswith(">>>") for line in path.read_text().splitlines())


def found_examples(path):
    module = importlib.import_module(module_name(path))
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module))


@pytest.mark.parametrize("path", [p for p in module_files() if written_examples(p)],
                         ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_every_example_is_in_a_docstring_doctest_finds(path):
    assert found_examples(path) == written_examples(path)


def test_the_walk_finds_the_modules_with_examples():
    assert any(written_examples(p) for p in module_files())
