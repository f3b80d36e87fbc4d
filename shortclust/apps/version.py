"""``shortclust --version``: the installed distribution's version, else the package's."""

import typer


def print_version(value: bool) -> None:
    """Typer callback of ``--version``: print ``shortclust X.Y.Z`` and exit when set."""
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"shortclust {version('shortclust')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            from shortclust import __version__

            typer.echo(f"shortclust {__version__}")
        raise typer.Exit()
