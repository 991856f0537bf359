"""Answers that mean "not for automated clients": 401/403, 429 with a CAPTCHA, a redirect to a login page.

No retry gets past them (the ACM PDF behind a Cloudflare challenge, 知乎's login wall), but
the user can: open the page in a browser, save it, and hand the copy over with
`corpus-build attach`. The fetch error says so, naming the source's id (filled in by
the engine, which knows it: `ID_SLOT` stands for it until then).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx

ID_SLOT = "<id>"
PEEK = 64 * 1024  # bytes of an error page read to look for a CAPTCHA
_CAPTCHA = re.compile(
    "captcha|recaptcha|hcaptcha|turnstile|challenge-platform|cf-chl-|are you a robot|unusual traffic|验证码|安全验证".encode(),
    re.IGNORECASE,
)
_LOGIN_PATH = re.compile(r"/(log[-_]?in|sign[-_]?in|sign[-_]?on|passport|sso|cas/login|accounts?/login|users?/sign_in|auth/login)(?:[/.?]|$)", re.IGNORECASE)


def hint(what: str) -> str:
    return (
        f"; {what}, which no retry gets past: open the address in your browser, save the page (or the PDF), "
        f"then run `corpus-build attach {ID_SLOT} FILE` to use your copy as the mirror"
    )


def is_login_redirect(location: str) -> bool:
    """A redirect into a sign-in page: what a login wall answers instead of the content."""
    parts = urlsplit(location)
    return bool(_LOGIN_PATH.search(parts.path or "/")) or bool(re.search(r"(^|&)(redirect|next|return_?to)=", parts.query or "") and "login" in location.lower())


def challenged(headers: Mapping[str, str], head: bytes) -> bool:
    if headers.get("cf-mitigated", "").lower() == "challenge" or "captcha" in headers.get("x-amzn-waf-action", "").lower():
        return True
    return bool(_CAPTCHA.search(head))


async def peek(response: httpx.Response, limit: int = PEEK) -> bytes:
    """At most `limit` bytes of a streamed error answer (decoded), for the CAPTCHA check."""
    head = b""
    try:
        async for chunk in response.aiter_bytes():
            head += chunk
            if len(head) >= limit:
                break
    except httpx.HTTPError:
        pass  # the page is only looked at; a broken error body changes nothing
    return head[:limit]


async def note_for(response: httpx.Response) -> str:
    """The hint to add to an HTTP error's message, or "" when the answer is an ordinary error."""
    status = response.status_code
    if status not in (401, 403, 429):
        return ""
    headers = {k.lower(): v for k, v in response.headers.items()}
    captcha = challenged(headers, await peek(response))
    if status == 429 and not captcha:
        return ""  # a plain rate limit: retrying later does work
    if captcha:
        return hint("the server answers automated clients with a CAPTCHA or a browser check")
    return hint("the server refuses automated clients" if status == 403 else "the server wants a login")
