"""The link stage: is every cited URL still there? (`corpus-build links`)

check.py asks the servers and keeps the answers in corpus/.links/results.json (its
records are core/linkrecords.py, which the site reads: render/linknotice.py tells readers),
fix.py rewrites a moved source's URL, cli.py is the command. Nothing is imported
here: the site build reads results without loading the HTTP machinery.
"""
