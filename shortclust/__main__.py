"""``python -m shortclust``: the same command line as the ``shortclust`` script."""

from shortclust.cli import main

if __name__ == "__main__":
    main()
