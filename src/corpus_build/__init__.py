"""corpus-build: a registry of annotated sources -> a mirrored, provenance-tracked corpus -> a Material site."""

__version__ = "0.1.0"
