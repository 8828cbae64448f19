"""A data folder built once per test module, and each test on its own copy of it.

A module's tests often ask questions of the same small archive.  Building it (ingesting, extracting, encoding) is
the slow part, so ``built_once`` does it once per module, in a fixture of module scope; each test then works on a
copy (``copy_on``, ``loop_on``): a test's turns write the conversation, its trace and observations, and nothing one
test does reaches another.  With ``KITH_TEST_SERVERS=1`` (a database per test) there is no folder to copy, and
the data are built for each test itself instead.

A module uses them as two fixtures: one of module scope returning ``built_once(tmp_path_factory, name, build)``,
and one per test doing ``yield from loop_on(request, "<that fixture's name>", build, configure)`` (or ``copy_on``
for the Container itself).
"""
from __future__ import annotations

import os
import shutil

import pytest


def built_once(tmp_path_factory, name, build):
    """The data folder ``build(container, folder)`` fills, made once: its path (the inputs stay beside it, in
    ``folder``) and the text encoder the build loaded (stateless: the copies' containers use it rather than load
    their own).  ``name`` names the temporary folder."""
    from app.container import Container

    folder = tmp_path_factory.mktemp(name)
    home = folder / "kith-home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KITH_HOME", str(home))
        c = Container()
        try:
            build(c, folder)
        finally:
            c.close()
    return home, c._encoder


def copy_on(request, template: str, build, configure):
    """Yields a Container on a copy of the data folder the module fixture ``template`` made with ``built_once``
    (in the test's ``kith_home``), set up by ``configure(container)`` (settings are not in the folder: the owner's
    name, say), and closes it afterwards.  With ``KITH_TEST_SERVERS=1`` the test's ``container`` fixture instead,
    the data built into it by ``build(container, tmp_path)``."""
    if os.environ.get("KITH_TEST_SERVERS") == "1":
        c = request.getfixturevalue("container")
        build(c, request.getfixturevalue("tmp_path"))
        yield c
        return
    from app.container import Container

    home, encoder = request.getfixturevalue(template)
    shutil.copytree(home, request.getfixturevalue("kith_home"), dirs_exist_ok=True)
    c = Container()
    c._encoder = encoder  # None: loaded on first use, as ever
    try:
        configure(c)
        yield c
    finally:
        c.close()


def loop_on(request, template: str, build, configure):
    """Yields a ConversationLoop (no language model) on the Container ``copy_on(request, template, build,
    configure)`` yields; for a fixture: ``yield from loop_on(...)``."""
    from app.loop import ConversationLoop
    from app.models.llm import NoModel

    copies = copy_on(request, template, build, configure)
    c = next(copies)
    try:
        yield ConversationLoop.for_container(c, model=NoModel())
    finally:
        copies.close()
