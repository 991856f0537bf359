"""The link stage: is every cited URL still there? (`corpus-build links`)

check.py asks the servers, records.py keeps the answers in corpus/.links/results.json,
site.py tells readers (dead-link notice with alternatives, status page list),
fix.py rewrites a moved source's URL, cli.py is the command. Nothing is imported
here: the site build reads results without loading the HTTP machinery.
"""
