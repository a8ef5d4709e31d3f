"""Reading a request's ``multipart/form-data`` body (how discord.py sends files) in one pass.

aiohttp's ``MultipartReader`` reads a part at a time from the stream and parses every header
with the standard library's ``email`` package: each ``Content-Type`` through the header
registry, each ``Content-Disposition`` once for the reader and once per ``name`` and
``filename`` (and that parser builds an escaping regex each time). Under the load benchmark,
where the bot uploads a picture with most of its answers, that was the fake's largest cost
(half of its time under cProfile, which magnifies its many small calls). The body is small
(a JSON payload and a PNG or two), so :func:`read_form_data` splits it whole on its boundary
(RFC 2046, section 5.1.1) and parses the few headers of each part by hand; the names and file
names still come from aiohttp's own ``Content-Disposition`` parser (quoting, escapes,
RFC 5987 ``filename*``), remembered by header: discord.py sends the same few headers again
and again.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from aiohttp.multipart import content_disposition_filename, parse_content_disposition

from .discord_state import UploadedFile

__all__ = ["media_type", "read_form_data"]

_FILE_FIELD = re.compile(r"files\[(\d+)\]")


def media_type(content_type: str | None) -> str:
    """The media type of a ``Content-Type`` header, lower case, without its parameters (as
    aiohttp's ``request.content_type``: ``application/octet-stream`` when there is none)."""
    if not content_type:
        return "application/octet-stream"
    return content_type.split(";", 1)[0].strip().lower()


def _boundary(content_type: str) -> bytes:
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "boundary":
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if value and len(value) <= 70:
                return value.encode()
    raise ValueError(f"no usable boundary in {content_type!r}")


@functools.lru_cache(maxsize=256)
def _names(disposition: str | None) -> tuple[str | None, str | None]:
    """A part's field name and file name, as aiohttp's ``BodyPartReader.name`` and
    ``.filename`` read them from its ``Content-Disposition``."""
    _, params = parse_content_disposition(disposition)
    return (content_disposition_filename(params, "name"),
            content_disposition_filename(params, "filename"))


def _headers(block: bytes) -> dict[str, str]:
    """A part's headers by lower-case name (the first of a repeated one, as a multidict's
    ``get``); a line starting with white space continues the one before."""
    headers: dict[str, str] = {}
    last = ""
    for line in block.decode("utf-8", "surrogateescape").split("\r\n"):
        if line[:1] in (" ", "\t") and last:
            headers[last] += " " + line.strip()
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"malformed part header {line!r}")
        last = name.strip().lower()
        headers.setdefault(last, value.strip())
    return headers


def _parts(body: bytes, boundary: bytes) -> list[tuple[dict[str, str], bytes]]:
    """Each part's headers and content, up to the closing delimiter."""
    dash = b"--" + boundary
    # The first delimiter opens the body, or ends a preamble on a line of its own.
    if body.startswith(dash):
        at = len(dash)
    else:
        found = body.find(b"\r\n" + dash)
        if found < 0:
            raise ValueError(f"could not find starting boundary {boundary!r}")
        at = found + 2 + len(dash)
    delimiter = b"\r\n" + dash
    parts = []
    while not body.startswith(b"--", at):  # "--" after a delimiter closes the body
        line_end = body.find(b"\r\n", at)
        if line_end < 0 or body[at:line_end].strip(b" \t"):
            raise ValueError(f"invalid boundary line after {boundary!r}")
        start = line_end + 2
        end = body.find(delimiter, start)
        if end < 0:
            raise ValueError(f"a part without its closing boundary {boundary!r}")
        if body.startswith(b"\r\n", start):  # no headers
            headers, content = {}, body[start + 2:end]
        else:
            head_end = body.find(b"\r\n\r\n", start, end)
            if head_end < 0:
                raise ValueError("a part's headers run into the next boundary")
            headers, content = _headers(body[start:head_end]), body[head_end + 4:end]
        parts.append((headers, content))
        at = end + len(delimiter)
    return parts


def read_form_data(body: bytes, content_type: str) -> tuple[Any, list[UploadedFile]]:
    """The ``payload_json`` part (parsed) and the ``files[n]`` parts of a form body whose
    request has this ``Content-Type``; other parts, nested multiparts among them, are left
    out. Raises ``ValueError`` for a body that isn't one."""
    payload: Any = None
    files: list[UploadedFile] = []
    for headers, content in _parts(body, _boundary(content_type)):
        part_type = headers.get("content-type")
        if media_type(part_type).startswith("multipart/"):
            continue  # nested multipart: never sent by discord.py
        name, filename = _names(headers.get("content-disposition"))
        name = name or ""
        if name == "payload_json":
            payload = json.loads(content.decode())
            continue
        match = _FILE_FIELD.fullmatch(name)
        if match is None:
            continue
        files.append(UploadedFile(index=int(match.group(1)),
                                  filename=filename or f"file{match.group(1)}",
                                  data=content, content_type=part_type))
    return payload, files
