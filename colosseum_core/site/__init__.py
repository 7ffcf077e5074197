"""The static-site engine every arena's public board is built with.

* ``formats``: how a record value becomes text (one function per kind of value; an arena's
  ``FieldFormats`` says which kind each of its fields is), and how text from outside is escaped;
* ``shell``: the pages' chrome, marked values and compact tables; ``style.css``, the one stylesheet;
* ``svg``: plots drawn by hand, deterministic to the byte;
* ``writer``: counted, deterministic files, the signer's names kept free;
* ``recipes``: the columns of a board's ``recipes`` download and the error for a rule without one;
* ``page_parse`` and ``check``: a built page read back, and the checks of shape every page passes;
* ``plugin``: what an arena gives the engine (build, refuse, re-check); ``public``: the one site, every
  arena's part in its own folder with a navigation between them; ``publish``: build beside the old
  site, sign the one manifest, swap the new site in whole, re-read it; ``trials``: the model trials'
  pages (``trials/``), the site's own, as a trial is every arena's at once.

The engine knows no arena: ``colosseum_core.arenas.PUBLIC_SITE`` lists the parts.

Imported by: every arena's pages (each a plug-in), the registry, the wiring's board and the
commands, and the tests. It imports no arena (``.importlinter``).
"""
