"""The one check of a refused command line, shared by the hostile-input tests."""

from typer.testing import CliRunner

from shortclust.cli import app


def refused(args) -> str:
    """Run ``shortclust *args``; assert exit 2 with one ``error:`` line; return it."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (
        result.exit_code, result.stderr, result.exception)
    return lines[0]
