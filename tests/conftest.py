
import pytest

from tests.corpus_fixture import write_corpus, write_project


@pytest.fixture(scope="session")
def _user_cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def hermetic_env(monkeypatch, _user_cache_dir):
    """No test reaches the network through a proxy or uses a real token, or writes the user's cache
    (one cache for the session: site/hanfold.py keeps its folding table there)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_user_cache_dir))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("CORPUS_BUILD_OFFLINE", "1")  # `add` reads no page (tests/test_add_lookup.py turns it off)


@pytest.fixture
def corpus_dir(tmp_path):
    return write_corpus(tmp_path)


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path)


@pytest.fixture(scope="session")
def default_site(tmp_path_factory):
    """The user's real corpus built strict once per session: (site folder, Corpus)."""
    from corpus_build import registry, site
    from tests.site_helpers import copy_default_project

    project = copy_default_project(tmp_path_factory.mktemp("default-project"))
    built = site.build(project, strict=True)
    return built, registry.load(project / "corpus")
