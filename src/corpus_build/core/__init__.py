"""The ground floor: records and helpers every stage may use, importing none of them.

    errors.py        the one error hierarchy (its docstring draws it)
    model.py         typed, frozen records of the registry: Corpus, Section, Source, Chapter, Digest…
    provenance.py    the fetch stage's records on disk (provenance.json), read by every later stage
    linkrecords.py   the link stage's records on disk (corpus/.links/results.json)
    threads.py       a PR's or issue's conversation, as fetch keeps it and render shows it
    pdf_structure.py a paper's pages and headings, as fetch keeps them (anchors like #page-12)
    bibfacts.py      each source's effective authors, dates, DOI, arXiv id: registry, else provenance
    urls.py          URL normal form, kind detection, readable ids
    limits.py        every bound on input size, declared once
    safepath.py      the one check every write and published read passes: it stays inside its folder
    runlock.py       corpus/.fetch.lock: one writer of the mirror folders at a time (fetch, attach, watch)
    mdtext.py        the Markdown-writing helpers and the one escape of outside text (watch and render)
    github_api.py    the GitHub REST client (fetch, watch and add's page lookup)
    cachekeys.py     what a cache key is made of: stable digests, our code's hash, the versions involved
    commands.py      the command-line registry: add_command, project_dir, the exit codes
    console.py       tables on a terminal, tab-separated lines when piped

scripts/check_layers.py keeps it the ground floor: a module here that imports a stage fails CI.
"""
