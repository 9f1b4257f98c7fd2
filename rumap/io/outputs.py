"""Files a run writes: checked before any work, written whole or not at all.

Every writer of rumap (the command line's ``--out`` and ``--report``, the
Python functions' ``out``, the dashboard's release on the server) goes through
this module:

- :func:`check_outputs`, called before any work, refuses an output that is one
  of the run's inputs (spelled the same, with ``./`` or ``a/../``, through a
  symbolic or a hard link), an output that already exists unless the user
  allows replacing it (``--overwrite``, ``overwrite=True``), a folder, a file
  in a folder that does not exist, and two outputs that are one file;
- :func:`atomic_outputs` hands out hidden temporary files in each target's
  folder and renames them into place only when the whole block has run without
  error: a run with several outputs writes all or none, and a failure leaves
  nothing new behind and nothing existing changed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from rumap._validation import assumes_valid
from rumap.errors import InputError

__all__ = ["check_outputs", "atomic_outputs", "same_file"]

#: A flag or parameter and the path it names (None: not given).
Named = tuple[str, "str | os.PathLike | None"]


@assumes_valid
def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file: the same after ``.``, ``..`` and links, or one file under two names.

    Parameters
    ----------
    a, b : str or path-like

    Returns
    -------
    bool

    Examples
    --------
    >>> same_file("data/x.csv", "data/../data/./x.csv")
    True
    """
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links, or two mounts of one folder
    except OSError:  # one of them does not exist
        return False


def _hint(flag: str) -> str:
    return "--overwrite" if flag.startswith("--") else "overwrite=True"


@assumes_valid
def check_outputs(outputs: Sequence[Named], inputs: Sequence[Named] = (), overwrite: bool = False) -> None:
    """Refuse, before any work, outputs that would destroy an input or an existing file, or cannot be written.

    Parameters
    ----------
    outputs : sequence of (flag, path)
        The files the run writes, each with the flag or parameter that named
        it (``"--out"``, ``"out"``); a None path is skipped.
    inputs : sequence of (flag, path)
        The files the run reads; a None path is skipped.
    overwrite : bool
        Whether an existing output may be replaced.

    Raises
    ------
    InputError
        An output that is an input or another output, an existing output
        without ``overwrite``, a folder, or a path whose folder does not exist;
        the message names the flag and the paths.

    Examples
    --------
    >>> check_outputs([("out", "data/persons.csv")], [("path", "data/./persons.csv")])
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: out data/persons.csv is the input path data/./persons.csv: write to another file
    """
    given = [(flag, path) for flag, path in outputs if path is not None]
    for i, (flag, path) in enumerate(given):
        for in_flag, in_path in inputs:
            if in_path is not None and same_file(path, in_path):
                raise InputError(f"{flag} {path} is the input {in_flag} {in_path}: write to another file")
        for other_flag, other in given[:i]:
            if same_file(path, other):
                raise InputError(f"{flag} {path} is also {other_flag} {other}: write each to its own file")
        real = Path(os.path.realpath(path))
        if real.is_dir():
            raise InputError(f"{flag} {path}: is a folder; name a file")
        if not real.parent.is_dir():
            raise InputError(f"{flag} {path}: no folder {real.parent}")
        if not os.access(real.parent, os.W_OK | os.X_OK):
            raise InputError(f"{flag} {path}: cannot write in the folder {real.parent}")
        if os.path.lexists(path) and not overwrite:
            raise InputError(f"{flag} {path}: the file exists; pass {_hint(flag)} to replace it")


def _temporary(target: Path, made: list[Path | None]) -> None:
    """Make a new hidden empty file beside ``target`` and add its name to ``made``.

    The name is added before the file is made, so a signal that stops the run
    at any instant (SIGTERM raises ``SystemExit`` between two steps) leaves
    ``made`` naming every file made; a name whose file was never made is
    removed harmlessly. The file has the permissions of a new file, and its
    name ends with the target's extension, which says the format to the
    readers and writers that go by it.
    """
    while True:
        made.append(target.parent / f".{target.stem}.{secrets.token_hex(6)}.partial{target.suffix}")
        try:
            descriptor = os.open(made[-1], os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            made.pop()  # another file's name: never to be removed
            continue
        except OSError:
            made.pop()
            raise
        os.close(descriptor)
        return


def _remove(*paths: Path | None) -> None:
    for path in paths:
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()


def _kept(target: Path) -> Path | None:
    """A second name for the file at ``target`` (a hard link, else a copy), to put back if a later rename fails."""
    if not target.exists():
        return None
    kept = target.parent / f".{target.name}.{secrets.token_hex(6)}.previous"
    try:
        os.link(target, kept)
    except OSError:
        shutil.copy2(target, kept)
    return kept


def _commit(pairs: list[tuple[Path, Path]]) -> None:
    """Rename each temporary onto its target; if one fails, the targets renamed before are put back."""
    several = len(pairs) > 1
    done: list[tuple[Path, Path | None]] = []
    try:
        for temporary, target in pairs:
            kept = _kept(target) if several else None
            if target.exists():
                shutil.copymode(target, temporary)
            try:
                os.replace(temporary, target)
            except BaseException:
                _remove(kept)
                raise
            done.append((target, kept))
    except BaseException:
        for target, kept in reversed(done):
            with contextlib.suppress(OSError):
                if kept is None:
                    target.unlink()
                else:
                    os.replace(kept, target)
        raise
    finally:
        _remove(*(kept for _, kept in done))
        _remove(*(temporary for temporary, _ in pairs))


@assumes_valid
@contextlib.contextmanager
def atomic_outputs(*targets: str | os.PathLike | None, flag: str = "the output") -> Iterator[tuple[Path | None, ...]]:
    """Temporary files to write in place of ``targets``, renamed into place only if the block succeeds.

    Each temporary is a hidden file in its target's folder (after links), so
    the rename is atomic. On any exception (``KeyboardInterrupt`` too) every
    temporary is removed and no target is touched; with several targets, all
    are replaced or none (a rename that fails puts back the ones made before).

    Parameters
    ----------
    *targets : str or path-like or None
        The files to write; None gives None (an output not asked for).
    flag : str
        Names the output in the message of a folder that cannot be written.

    Yields
    ------
    tuple of Path or None
        A temporary file for each target, in order.

    Raises
    ------
    InputError
        A temporary that cannot be made, or a rename that fails.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with atomic_outputs(Path(folder) / "a.txt") as (temporary,):
    ...         _ = temporary.write_text("done")
    ...     sorted(p.name for p in Path(folder).iterdir())
    ['a.txt']
    """
    real = [None if t is None else Path(os.path.realpath(t)) for t in targets]
    temporaries: list[Path | None] = []
    try:
        for target in real:
            if target is None:
                temporaries.append(None)
            else:
                _temporary(target, temporaries)
        yield tuple(temporaries)
    except BaseException as exc:
        _remove(*temporaries)
        if isinstance(exc, OSError) and len(temporaries) < len(real):
            raise InputError(f"{flag} {targets[len(temporaries)]}: cannot write the file "
                             f"({exc.strerror or exc})") from None
        raise
    pairs = [(t, target) for t, target in zip(temporaries, real, strict=True) if t is not None and target is not None]
    try:
        _commit(pairs)
    except OSError as exc:
        raise InputError(f"{flag}: cannot write the file ({exc.strerror or exc})") from None
