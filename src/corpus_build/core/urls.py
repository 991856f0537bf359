"""URL facts the registry needs: normal form (for duplicate detection), kind, readable ids."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import SplitResult, parse_qsl, unquote, urlencode, urlunsplit
from urllib.parse import urlsplit as _urlsplit

# Query parameters that only say who sent the reader (ad-click ids, newsletter and campaign
# tags): the ones Firefox's query stripping and the ClearURLs rules remove everywhere, plus
# Alibaba's `spm` position code, which aliyun/taobao pages append to every link. Generic words
# (`source`, `ref`, `from`, `id`, `lang`…) are not in it: sites route on them, and two URLs
# differing in them can be two documents.
_TRACKING = re.compile(
    r"^(utm_[a-z_]+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|twclid|igshid|"
    r"mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|vero_id|oly_anon_id|oly_enc_id|spm)$",
    re.IGNORECASE,
)
_ID_CHARS = re.compile(r"[^a-z0-9._-]+")
# \Z, not $: `$` also matches before a final newline, and "a\n" must not pass as an id.
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*\Z")
# Characters that make a URL display as something else than it is (bidi overrides and
# isolates, zero-width joiners and marks) or that terminals interpret (C0/C1 controls).
_DECEPTIVE = re.compile("[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def urlsplit(url: str) -> SplitResult:
    """urllib's urlsplit, but an unparsable URL ("https://[") splits into nothing instead of raising."""
    try:
        return _urlsplit(url)
    except ValueError:
        return SplitResult("", "", "", "", "")


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises on "https://host:abc/"
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _scripts(label: str) -> set[str]:
    """The scripts of a host label's letters (LATIN, CYRILLIC, GREEK, CJK…); digits and '-' have none."""
    found = set()
    for ch in label:
        if ch.isascii() and not ch.isalpha():
            continue
        name = unicodedata.name(ch, "")
        if name:
            found.add(name.split(" ")[0])
    # Chinese and Japanese domains mix CJK ideographs with kana or Latin letters legitimately.
    if found & {"CJK", "HIRAGANA", "KATAKANA", "HANGUL"}:
        found -= {"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "LATIN"}
        found.add("CJK")
    return found


def url_problem(url: str) -> str | None:
    """Why an http(s) URL must not be cited (how to fix it), or None.

    For what a reader is shown and a fetch reaches: no credentials, no controls or
    bidi tricks, no host label beginning or ending with '-', no host mixing scripts
    (gіthub.com with a Cyrillic і looks like github.com and is not).
    """
    if _DECEPTIVE.search(url) or _DECEPTIVE.search(unquote(url)):
        return "contains invisible control or bidirectional-override characters (e.g. U+202E), which make it display as another address; retype it"
    unsafe = sorted(set(re.findall(r'[<>"`\\{}|^]', url)))
    if unsafe:
        return f"contains {' '.join(unsafe)}, which URLs may not contain raw; percent-encode them (e.g. %3C for <)"
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        return "contains a user name or password (user:pass@host); remove the credentials from the cited address"
    host = parts.hostname or ""
    for label in host.split("."):
        if label.startswith("-") or label.endswith("-"):
            return f"host '{host}' has a label starting or ending with '-', which is not a valid host name"
        try:
            shown = label.encode("ascii").decode("idna") if label.startswith("xn--") else label
        except (UnicodeError, ValueError):
            return f"host '{host}' has an invalid internationalised label '{label}'"
        if len(_scripts(shown)) > 1:
            return f"host '{host}' mixes writing systems in '{shown}' (a look-alike of another address?); use the real host name"
    return None


def normalize(url: str) -> str:
    """The form two URLs share when they cite the same thing.

    Lower-cased scheme and host, no `www.`, no default port, no tracking parameters
    (`_TRACKING`), no trailing slash, no `.git` on GitHub repos, and arXiv `pdf/`/`abs/`
    and version suffixes folded together. A plain `#anchor` is dropped (a place in the same
    document), a `#/route` or `#!/route` is kept: single-page sites name their pages that way.
    """
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    path = re.sub(r"/{2,}", "/", parts.path).rstrip("/")
    if host == "github.com":
        path = path.lower().removesuffix(".git")
    if host == "arxiv.org":
        match = re.match(r"^/(?:abs|pdf)/([^/]+?)(?:v\d+)?(?:\.pdf)?$", path)
        if match:
            path = f"/abs/{match.group(1)}"
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query) if not _TRACKING.match(k)))
    route = parts.fragment if parts.fragment.startswith(("/", "!/")) else ""
    return urlunsplit(("https", host + port, path, query, route.rstrip("/")))


def github_parts(url: str) -> tuple[str, str, str] | None:
    """(owner, repo, rest-of-path) for a github.com URL, else None."""
    parts = urlsplit(url)
    if (parts.hostname or "").lower().removeprefix("www.") != "github.com":
        return None
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) < 2:
        return None
    return segments[0], segments[1].removesuffix(".git"), "/".join(segments[2:])


# Kinds that may legitimately sit on a URL that implies another: a course is
# often a playlist on a video site.
ALSO_FITS = {"video": ("course",)}


def detect_kind(url: str) -> str | None:
    """The kind a URL clearly implies, or None when it has no strong opinion.

    Only strong signals count: a `docs` page hosted on GitHub (`blob/…`) or an
    article that happens to be a PDF must not be called a contradiction.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    gh = github_parts(url)
    if gh:
        rest = gh[2]
        if rest == "":
            return "repo"
        if re.fullmatch(r"issues/\d+", rest):
            return "issue"
        if re.fullmatch(r"pull/\d+(/.*)?", rest):
            return "pull"
        if re.fullmatch(r"discussions/\d+", rest):
            return "discussion"
        return None
    if host in ("arxiv.org", "export.arxiv.org") and re.match(r"^/(abs|pdf)/", path):
        return "paper"
    if host in ("doi.org", "dx.doi.org", "openreview.net", "dl.acm.org", "proceedings.mlsys.org"):
        return "paper"
    if host in ("huggingface.co", "hf-mirror.com"):
        segments = [s for s in path.split("/") if s]
        if segments[:1] == ["datasets"] and len(segments) >= 3:
            return "dataset"
        if segments and segments[0] not in ("docs", "blog", "papers", "spaces", "learn") and len(segments) == 2:
            return "model"
        return None
    if host in ("youtube.com", "youtu.be", "bilibili.com", "vimeo.com"):
        return "video"
    return None


def guess_kind(url: str) -> str:
    """The kind to use when the registry gives none."""
    kind = detect_kind(url)
    if kind:
        return kind
    path = urlsplit(url).path.lower()
    if path.endswith(".pdf"):
        return "paper"
    host = (urlsplit(url).hostname or "").lower()
    if host.startswith("docs.") or "/docs" in path or host.endswith("readthedocs.io"):
        return "docs"
    return "article"


def slugify(text: str) -> str:
    slug = _ID_CHARS.sub("-", text.lower()).strip("-._")
    return re.sub(r"-{2,}", "-", slug)


def derive_id(url: str, title: str = "") -> str:
    """A readable id for a new source: `tilelang`, `tilelang-pr-2900`, `arxiv-2601.07372`…"""
    gh = github_parts(url)
    if gh:
        _owner, repo, rest = gh
        match = re.fullmatch(r"(issues|pull|discussions)/(\d+).*", rest)
        if match:
            label = {"issues": "issue", "pull": "pr", "discussions": "discussion"}[match.group(1)]
            return slugify(f"{repo}-{label}-{match.group(2)}")
        if rest:
            return _shorten(slugify(f"{repo}-{rest.split('/')[-1].rsplit('.', 1)[0]}"))
        return slugify(repo)
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    match = re.match(r"^/(?:abs|pdf)/([^/]+?)(?:v\d+)?(?:\.pdf)?$", parts.path)
    if host == "arxiv.org" and match:
        return slugify(f"arxiv-{match.group(1)}")
    if title and slugify(_without_site_name(title)):
        return _shorten(slugify(_without_site_name(title)))
    words = [w for w in (_segment_word(s) for s in parts.path.split("/")) if w]
    # Dates and versions (/2024/05/, /3/, /v2/) are noise before the page's own name, not as it.
    words = [w for i, w in enumerate(words) if i == len(words) - 1 or not _VERSION.fullmatch(w)]
    return _shorten(slugify("-".join([_site_name(host), *words[-2:]]))) or "source"


# What a URL's path carries that names no page: index files, language and version folders.
_NOISE_SEGMENTS = frozenset({"index", "default", "home", "www", "latest", "stable", "current", "en", "en-us", "zh-cn", "zh-hans", "zh-tw"})
_PAGE_SUFFIX = re.compile(r"\.(?:html?|xhtml|shtml|php\d?|aspx?|jsp|cgi|pdf)$", re.IGNORECASE)
_VERSION = re.compile(r"v?\d{1,4}(?:\.\d+)*")
# Hosts where the first label is the site (tile-ai.github.io is tile-ai's, not GitHub's).
_HOSTING = frozenset({"github", "gitlab", "readthedocs", "netlify", "vercel", "pages", "blogspot", "wordpress", "substack", "medium", "notion"})
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "edu", "gov"})
_ID_LENGTH = 40


def _segment_word(segment: str) -> str:
    """A path segment as an id word: decoded, without its page suffix, "" when it names nothing."""
    word = slugify(_PAGE_SUFFIX.sub("", unquote(segment)))
    return "" if word in _NOISE_SEGMENTS else word


def _site_name(host: str) -> str:
    """`python` for docs.python.org, `zhihu` for zhuanlan.zhihu.com, `tile-ai` for tile-ai.github.io."""
    if re.fullmatch(r"[\d.]+|\[.*\]", host):  # an IP address
        return host.strip("[]")
    labels = host.split(".")
    if len(labels) > 1:
        labels.pop()  # the top-level domain
    if len(labels) > 1 and len(host.rsplit(".", 1)[-1]) == 2 and labels[-1] in _SECOND_LEVEL:
        labels.pop()  # example.co.uk, example.com.cn
    if len(labels) > 1 and labels[-1] in _HOSTING:
        labels.pop()
    return labels[-1] if labels else host


def _without_site_name(title: str) -> str:
    """A page title without the site name most sites append ("json — Python 3.14 documentation")."""
    parts = re.split(r"\s+[|—–·-]\s+", title.strip())
    return " ".join(parts[:-1]) if len(parts) > 1 else title


def _shorten(slug: str) -> str:
    """At most `_ID_LENGTH` characters, cut between words."""
    if len(slug) <= _ID_LENGTH:
        return slug.strip("-._")
    cut = slug[: _ID_LENGTH + 1].rsplit("-", 1)[0]
    return (cut if len(cut) >= _ID_LENGTH // 2 else slug[:_ID_LENGTH]).strip("-._")


_ARXIV_PATH = re.compile(r"^/(?:abs|pdf|html)/((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)(?:\.pdf)?/?$")


def arxiv_id(url: str) -> str:
    """The arXiv id an arxiv.org/abs|pdf URL names, with its version if given (2504.17577v2); "" otherwise."""
    parts = urlsplit(url)
    if (parts.hostname or "").lower().removeprefix("www.").removeprefix("export.") != "arxiv.org":
        return ""
    match = _ARXIV_PATH.match(parts.path)
    return match.group(1) if match else ""


def default_title(url: str) -> str:
    """The title `add` writes when it cannot read the page ("owner/repo#12", "arXiv:2504.17577",
    "example.org/guide"): the placeholder the site later replaces with the mirror's (core/bibfacts)."""
    gh = github_parts(url)
    if gh:
        owner, repo, rest = gh
        number = rest.split("/")[1] if rest.split("/")[0] in ("issues", "pull", "discussions") and "/" in rest else ""
        return f"{owner}/{repo}#{number}" if number else f"{owner}/{repo}" + (f" — {rest}" if rest else "")
    derived = derive_id(url)
    if derived.startswith("arxiv-"):
        return f"arXiv:{derived.removeprefix('arxiv-')}"
    return url.split("://", 1)[-1].rstrip("/")
