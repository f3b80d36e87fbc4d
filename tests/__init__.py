"""The test suite, a package so that its helpers import by full name (``tests.naive``,
``tests.pipeline.fake_estimators``) however pytest is started: ``pytest``,
``python -m pytest`` or ``make test`` from the repository root.

pytest's default ``prepend`` import mode puts the first directory above a test file that
has no ``__init__.py`` on ``sys.path``; with ``__init__.py`` files down to every test
folder that directory is the repository root, so ``tests`` and ``shortclust`` are found
from the checkout itself.
"""
